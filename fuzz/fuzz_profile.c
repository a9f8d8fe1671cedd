/*
 * fuzz_profile.c - a libFuzzer target for a run's profile files: what
 * mortar-sim's <name>.profile.json and a host's <name>.host.json hold,
 * gathered with the run's spec.json (cli/run/profile_data.c), checked,
 * and printed as `mortar profile` prints them.
 *
 * The input is up to three files separated by FUZZ_FILE_SEP: sim0.profile.json,
 * client.host.json and spec.json. Whatever they hold, the profile is
 * gathered and either refused by its check or printed; never a crash or a
 * sanitizer report. The first file is also checked alone, as
 * `mortar import` checks a record's "profile".
 */
#include <jansson.h>

#include "fuzz_files.h"
#include "profile_data.h"

static FILE *null_out;

static void check_alone(const uint8_t *data, size_t size)
{
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    char err[512];
    if (j && profile_check(j, err, sizeof err) == 0)
        profile_print(null_out, j);
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"sim0.profile.json", "client.host.json",
                                        "spec.json"};
    if (!null_out && !(null_out = fopen("/dev/null", "w")))
        abort();
    const uint8_t *part[3];
    size_t len[3];
    size_t nparts = fuzz_split(data, size, part, len, 3);
    char paths[3][128];
    for (size_t i = 0; i < nparts; i++)
        fuzz_write(names[i], part[i], len[i], paths[i], sizeof paths[i]);
    char err[512];
    json_t *profile = profile_collect_checked(fuzz_dir(), err, sizeof err);
    if (profile)
        profile_print(null_out, profile);
    json_decref(profile);
    for (size_t i = 0; i < nparts; i++)
        unlink(paths[i]);
    check_alone(part[0], len[0]);
    return 0;
}
