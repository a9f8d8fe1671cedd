/*
 * mortar_ram_reset.h - a kept QEMU's guest RAM back to the snapshot's
 * (mortar_park.h).
 *
 * A restoring QEMU maps the snapshot's RAM file privately (docs/snapshots.md,
 * "The guest's RAM"), so the pages some run wrote are the private copies
 * in that mapping, and every other page still shows the file. The reset
 * asks the kernel which pages those are (/proc/self/pagemap) and reads the
 * file's bytes over the ones the last run wrote, dropping their translated
 * code (their contents change back). Which ones those are the log of
 * writes says (QEMU's VGA dirty client, which no device of these machines
 * uses): the vCPU's first write to a page after the log is cleared takes
 * the slow path that marks it, and so does a device's DMA. The log starts
 * at the first reset, which reads the file over every private copy. The
 * copies stay mapped, and so do the file's pages the run only read: the
 * next run takes no page fault on either (a fault costs 6-17 us on the test
 * machine, and mapping the file again over the RAM, as the reset did
 * before, cost a kept host 8-14 thousand of them a run). The translated
 * code of every page the run left alone stays valid. MORTAR_RESET_CHECK=1
 * compares every private copy the log says was not written with the file,
 * and fails the run if one differs. The
 * other RAM blocks (firmware, option ROMs) come back from the snapshot's
 * stream, which writes them without telling the translation cache: their
 * translated code is dropped whole (there is hardly any).
 */
#ifndef MORTAR_RAM_RESET_H
#define MORTAR_RAM_RESET_H

#include "qapi/error.h"

/* Every private file-backed RAM block back to its file, and the translated
 * code of every page a loadvm of the snapshot then changes dropped
 * (cpu_loadvm_keeps_tbs may be set for it). The VM must be stopped. */
bool mortar_ram_reset(Error **errp);

#endif
