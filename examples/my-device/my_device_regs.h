/*
 * my_device_regs.h - the register map of my-device, a checksum
 * accelerator: the one place the device model (my_device.c) and its driver
 * (my_device_host.c) both read it from. README.md documents it.
 *
 * The device computes the Adler-32 checksum (RFC 1950, section 8.2) of a
 * buffer in host memory, which it reads by DMA; it writes the result to
 * host memory by DMA, keeps it in RESULT, and raises MSI vector 0.
 */
#ifndef MY_DEVICE_REGS_H
#define MY_DEVICE_REGS_H

#define MY_DEVICE_VENDOR_ID 0x1de5
#define MY_DEVICE_DEVICE_ID 0x00c5
#define MY_DEVICE_BAR_SIZE  4096

/* BAR 0. All registers are 32 bits wide except the two addresses (64 bits,
 * written as one 8-byte access or as two 4-byte halves, low half first). */
#define MY_DEVICE_REG_ID       0x00 /* RO: MY_DEVICE_ID_VALUE */
#define MY_DEVICE_REG_SRC_ADDR 0x08 /* RW: host address of the buffer */
#define MY_DEVICE_REG_LEN      0x10 /* RW: its length in bytes, 1..MY_DEVICE_MAX_LEN */
#define MY_DEVICE_REG_DST_ADDR 0x18 /* RW: host address the result goes to (4 bytes) */
#define MY_DEVICE_REG_CTRL     0x20 /* WO: MY_DEVICE_CTRL_* */
#define MY_DEVICE_REG_STATUS   0x24 /* RO: MY_DEVICE_STATUS_* */
#define MY_DEVICE_REG_RESULT   0x28 /* RO: the last checksum */

#define MY_DEVICE_ID_VALUE 0x4d594431u /* "MYD1" */
#define MY_DEVICE_MAX_LEN  (1u << 20)

#define MY_DEVICE_CTRL_START  0x1 /* start (ignored and counted while busy) */
#define MY_DEVICE_CTRL_IRQ_EN 0x2 /* raise MSI vector 0 when done */

#define MY_DEVICE_STATUS_BUSY  0x1
#define MY_DEVICE_STATUS_DONE  0x2 /* cleared by the next start */
#define MY_DEVICE_STATUS_ERROR 0x4 /* bad length or a refused DMA; RESULT is 0 */

#endif
