/*
 * fuzz_sim.c - a libFuzzer target for mortar-sim's descriptions
 * (sims/runner/sim_config.c, sim_check.c): the components with their
 * parameters, the links and their options.
 *
 * The input is the description's text. It is built by sim_config_parse,
 * which creates the components and the in-process links but opens no
 * trace file and no socket; whatever the text, it ends with a loop or an
 * error naming the JSON path, never a crash, a hang or a sanitizer report.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/log.h"
#include "sim_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool quiet;
    if (!quiet) {
        mortar_log_set_level(MORTAR_LOG_ERROR);
        quiet = true;
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sim_config cfg;
    char err[1024];
    if (sim_config_parse(text, &cfg, err, sizeof err) == 0)
        mortar_loop_destroy(cfg.loop);
    free(text);
    return 0;
}
