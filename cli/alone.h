/*
 * alone.h - `mortar alone`: the matmul component benchmark, and
 * alone_measure(), the same benchmark as a function for the verdict.
 */
#ifndef MORTAR_CLI_ALONE_H
#define MORTAR_CLI_ALONE_H

#include <stddef.h>

/* The case study's request: n x n operands from this seed (mortar alone's
 * defaults, and what alone_measure() runs). */
#define ALONE_DEFAULT_N      512
#define ALONE_DEFAULT_SEED   1
#define ALONE_DEFAULT_RESULT MATMUL_RESULT_I8 /* sims/matmul/result.h */

/*
 * Runs the component benchmark for `design` ("a", "b", "regcopy") at `speed`
 * with the case study's request and stores the device's compute time for
 * it in *alone_us. Deterministic and quick: one request through the model
 * and the reference multiply, once per process for each design and speed
 * (later calls return the first result). Returns 0, or a negative MORTAR_E
 * code with the reason in `err` (the run failed, or the product differs
 * from the reference multiply). In the library (alone_bench.c).
 */
int alone_measure(const char *design, double speed, double *alone_us, char *err,
                  size_t err_size);

/*
 * mortar alone --design a|b|regcopy|rtl-b --speed S [--n 512] [--seed N]
 *              [--result int8|int32]
 *
 * Runs one request through the matmul device alone (host stub, 1 ps link,
 * no bandwidth limit; rtl-b: design B in RTL on the rtl component, speed 1
 * only, n up to 512), the driver asking for the product in --result's
 * format (default int8), checks the product against the reference multiply
 * (requantized for int8) and prints key=value lines, alone_us=<device
 * compute time, 2 decimals> last. Returns 0, 1 when the product is wrong or
 * the run failed, 2 on a usage error.
 */
int mortar_alone_main(int argc, char **argv);

#endif
