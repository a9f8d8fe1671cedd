/*
 * mortar_pci.h - what the rest of mortar's QEMU code asks of the mortar-pci
 * devices (mortar_pci.c).
 */
#ifndef MORTAR_PCI_H
#define MORTAR_PCI_H

#include "qapi/error.h"

/* How many mortar-pci devices this QEMU has. */
unsigned mortar_pci_count(void);

/*
 * A kept QEMU's next run (mortar_park.h): the device `name` leaves its
 * model and connects to the one listening at `socket`, which must present
 * the same identity (the guest's config space and BARs were built from
 * it). The device's own state is the snapshot's once it is loaded.
 */
bool mortar_pci_relink(const char *name, const char *socket, Error **errp);

#endif
