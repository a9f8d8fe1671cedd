/*
 * host_faults.c - faults the hosts report (see host_faults.h).
 */
#include "host_faults.h"

#include <stdio.h>
#include <string.h>

#define HOST_PREFIX "host_"

bool host_faults_none(const json_t *stats, char *err, size_t err_size)
{
    const char *key;
    json_t *host;
    json_object_foreach((json_t *)stats, key, host) {
        if (strncmp(key, HOST_PREFIX, strlen(HOST_PREFIX)) != 0)
            continue;
        json_t *late = json_object_get(host, "late_messages");
        if (!json_is_integer(late) || json_integer_value(late) <= 0)
            continue;
        json_int_t n = json_integer_value(late);
        snprintf(err, err_size,
                 "host '%s' handled %lld message%s after its vCPU had passed %s "
                 "(late_messages; its QEMU log names the first): its guest may have seen "
                 "a state it should not have",
                 key + strlen(HOST_PREFIX), (long long)n, n == 1 ? "" : "s",
                 n == 1 ? "it" : "them");
        return false;
    }
    return true;
}
