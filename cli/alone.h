/*
 * alone.h - `mortar alone`: the matmul component benchmark.
 */
#ifndef MORTAR_CLI_ALONE_H
#define MORTAR_CLI_ALONE_H

/*
 * mortar alone --design a|b|regcopy --speed S [--n 512] [--seed N]
 *
 * Runs one request through the matmul device alone (host stub, 1 ps link,
 * no bandwidth limit), checks the product against the reference multiply
 * and prints key=value lines, alone_us=<device compute time, 2 decimals>
 * last. Returns 0, 1 when the product is wrong or the run failed, 2 on a
 * usage error.
 */
int mortar_alone_main(int argc, char **argv);

#endif
