/*
 * mortar/name.h - the one rule for every name in a spec or a mortar-sim
 * description: specs, hosts, components, links and processes.
 *
 * Names become file names in a run's directory ("<host>.console.log",
 * "<process>.json", "<link>.sock") and parts of QEMU option strings, so a
 * name is 1 to MORTAR_NAME_MAX characters from A-Z a-z 0-9 _ -: no '/',
 * no "..", no ',' or '=' can get through. No '.' either: every file of a
 * run is "<name>.<suffix>", and with dots two names' files could be one
 * (host "a" and process "a.host" would both write "a.host.json"); and a
 * port reference "component.N" stays unambiguous.
 * `mortar spec`, `mortar run` and mortar-sim all check names with this one
 * function.
 */
#ifndef MORTAR_NAME_H
#define MORTAR_NAME_H

#include <stddef.h>

#define MORTAR_NAME_MAX      64
#define MORTAR_NAME_MAX_TEXT "64" /* the same, for messages */

/* Returns 0 if `name` follows the rule, or MORTAR_EINVAL with the reason
 * ("'../x' is not a valid name: ...") in `why` (`why_size` bytes; `why`
 * may be NULL). A NULL name is not valid. */
int mortar_name_check(const char *name, char *why, size_t why_size);

#endif
