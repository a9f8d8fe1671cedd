/*
 * nvm.c - the i40e model's NVM shadow RAM: 4 KiB (2048 words, reported as
 * GLNVM_GENS.SR_SIZE 2) read one word at a time through GLNVM_SRCTL (address
 * and START) and GLNVM_SRDATA (the word in bits 16-31); a read completes at
 * once, so SRCTL.DONE is always set when the driver looks.
 *
 * Contents: the control word marks the image valid, the pointers the driver
 * follows (boot configuration, VPD, PCIe alternate auto-load) lead to places
 * inside the image or to nothing (0xFFFF), the version words give the NVM
 * version and EETRACK id, and word 0x3F holds the checksum that makes all
 * words the driver sums add up to 0xBABA. The MAC address is stored at
 * I40E_NVM_MAC_WORD (a location of this model; the driver gets the address
 * through the "MAC address read" admin command, which answers from here).
 */
#include "i40e_internal.h"

#define NVM_CONTROL_WORD    0x00
#define NVM_CONTROL_VALID   0x0040 /* bits 6-7 = 01: valid image */
#define NVM_PBA_FLAGS       0x15
#define NVM_BOOT_CONFIG_PTR 0x17
#define NVM_DEV_STARTER_VER 0x18
#define NVM_OEM_VERSION_PTR 0x1B
#define NVM_WAKE_ON_LAN     0x19
#define NVM_EETRACK_LO      0x2D
#define NVM_EETRACK_HI      0x2E
#define NVM_VPD_PTR         0x2F
#define NVM_PCIE_ALT_PTR    0x3E
#define NVM_CHECKSUM_WORD   0x3F
#define NVM_CHECKSUM_BASE   0xBABA
#define NVM_OEM_VER_OFF     0x83
#define NVM_BOOT_CONFIG     0x200 /* where the boot configuration module sits */
#define I40E_NVM_MAC_WORD   0x100

uint16_t i40e_nvm_word(const i40e *d, uint32_t addr)
{
    return addr < I40E_NVM_WORDS ? d->nvm[addr] : 0xFFFF;
}

void i40e_nvm_init(i40e *d)
{
    uint16_t *w = d->nvm;
    for (uint32_t i = 0; i < I40E_NVM_WORDS; i++)
        w[i] = 0;
    w[NVM_CONTROL_WORD] = NVM_CONTROL_VALID;
    w[NVM_PBA_FLAGS] = 0; /* no part-number block */
    w[NVM_BOOT_CONFIG_PTR] = NVM_BOOT_CONFIG;
    w[NVM_DEV_STARTER_VER] = 0x4033; /* NVM 4.33, as the firmware */
    w[NVM_WAKE_ON_LAN] = 0x000F;     /* a set bit disables WoL on that port */
    w[NVM_EETRACK_LO] = 0x1583;
    w[NVM_EETRACK_HI] = 0x8000;
    w[NVM_OEM_VERSION_PTR] = 0xFFFF; /* no OEM version block */
    w[NVM_VPD_PTR] = 0xFFFF;
    w[NVM_PCIE_ALT_PTR] = 0xFFFF;
    w[NVM_BOOT_CONFIG + NVM_OEM_VER_OFF] = 0x0001;
    w[NVM_BOOT_CONFIG + NVM_OEM_VER_OFF + 1] = 0x0000;
    for (uint32_t i = 0; i < 3; i++)
        w[I40E_NVM_MAC_WORD + i] = (uint16_t)(d->mac[2 * i] | d->mac[2 * i + 1] << 8);
    uint16_t sum = 0;
    for (uint32_t i = 0; i < I40E_NVM_WORDS; i++)
        if (i != NVM_CHECKSUM_WORD)
            sum = (uint16_t)(sum + w[i]);
    w[NVM_CHECKSUM_WORD] = (uint16_t)(NVM_CHECKSUM_BASE - sum);
}

void i40e_nvm_srctl_write(i40e *d, uint32_t v)
{
    if (!(v & I40E_GLNVM_SRCTL_START)) {
        i40e_reg_set(d, I40E_GLNVM_SRCTL,
                     (v & ~I40E_GLNVM_SRCTL_START) | I40E_GLNVM_SRCTL_DONE);
        return;
    }
    uint32_t addr = v >> I40E_GLNVM_SRCTL_ADDR_SHIFT & I40E_GLNVM_SRCTL_ADDR_MASK;
    i40e_reg_set(d, I40E_GLNVM_SRDATA,
                 (uint32_t)i40e_nvm_word(d, addr) << I40E_GLNVM_SRDATA_SHIFT);
    i40e_reg_set(d, I40E_GLNVM_SRCTL,
                 (v & ~I40E_GLNVM_SRCTL_START) | I40E_GLNVM_SRCTL_DONE);
}
