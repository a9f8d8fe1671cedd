/*
 * e1000_regs.h - register offsets, bit fields and descriptor layouts of the
 * Intel 8254x (82540EM) that the model implements.
 *
 * The values are facts of the hardware interface (Intel's 8254x developer
 * manual; the same numbers appear in the Linux e1000 driver's e1000_hw.h).
 * Only what the model uses is listed. Offsets are byte offsets into BAR0.
 */
#ifndef MORTAR_E1000_REGS_H
#define MORTAR_E1000_REGS_H

/* ---- PCI identity (82540EM, as QEMU also presents it) ------------------- */
#define E1000_VENDOR_INTEL  0x8086
#define E1000_DEV_82540EM   0x100E
#define E1000_SUBSYS_VENDOR 0x8086
#define E1000_SUBSYS_ID     0x001E
#define E1000_REVISION      0x03
#define E1000_BAR0_SIZE     0x20000 /* 128 KiB of registers */
#define E1000_BAR1_SIZE     0x40    /* I/O: IOADDR, IODATA */
#define E1000_IOADDR        0x00
#define E1000_IODATA        0x04

/* ---- general registers ------------------------------------------------ */
#define E1000_CTRL     0x00000
#define E1000_CTRL_DUP 0x00004
#define E1000_STATUS   0x00008
#define E1000_EECD     0x00010
#define E1000_EERD     0x00014
#define E1000_CTRL_EXT 0x00018
#define E1000_FLA      0x0001C
#define E1000_MDIC     0x00020
#define E1000_FCAL     0x00028
#define E1000_FCAH     0x0002C
#define E1000_FCT      0x00030
#define E1000_VET      0x00038
#define E1000_ICR      0x000C0
#define E1000_ITR      0x000C4
#define E1000_ICS      0x000C8
#define E1000_IMS      0x000D0
#define E1000_IMC      0x000D8
#define E1000_RCTL     0x00100
#define E1000_FCTTV    0x00170
#define E1000_TXCW     0x00178
#define E1000_RXCW     0x00180
#define E1000_TCTL     0x00400
#define E1000_TCTL_EXT 0x00404
#define E1000_TIPG     0x00410
#define E1000_TBT      0x00448
#define E1000_AIT      0x00458
#define E1000_LEDCTL   0x00E00
#define E1000_PBA      0x01000
#define E1000_FCRTL    0x02160
#define E1000_FCRTH    0x02168
#define E1000_FCRT_MASK   0x0000FFF8u /* FCRTH/FCRTL threshold, 8-byte units */
#define E1000_FCRTL_XONE  0x80000000u /* send XON at the low mark */
#define E1000_RDFH     0x02410
#define E1000_RDFT     0x02418
#define E1000_RDFHS    0x02420
#define E1000_RDFTS    0x02428
#define E1000_RDFPC    0x02430
#define E1000_RDBAL    0x02800
#define E1000_RDBAH    0x02804
#define E1000_RDLEN    0x02808
#define E1000_RDH      0x02810
#define E1000_RDT      0x02818
#define E1000_RDTR     0x02820
#define E1000_RXDCTL   0x02828
#define E1000_RADV     0x0282C
#define E1000_RSRPD    0x02C00
#define E1000_TXDMAC   0x03000
#define E1000_TDFH     0x03410
#define E1000_TDFT     0x03418
#define E1000_TDFHS    0x03420
#define E1000_TDFTS    0x03428
#define E1000_TDFPC    0x03430
#define E1000_TDBAL    0x03800
#define E1000_TDBAH    0x03804
#define E1000_TDLEN    0x03808
#define E1000_TDH      0x03810
#define E1000_TDT      0x03818
#define E1000_TIDV     0x03820
#define E1000_TXDCTL   0x03828
#define E1000_TADV     0x0382C
#define E1000_TSPMT    0x03830
#define E1000_RXCSUM   0x05000
#define E1000_MTA      0x05200 /* 128 words */
#define E1000_RA       0x05400 /* 16 pairs RAL, RAH */
#define E1000_VFTA     0x05600 /* 128 words */
#define E1000_WUC      0x05800
#define E1000_WUFC     0x05808
#define E1000_WUS      0x05810
#define E1000_MANC     0x05820
#define E1000_IPAV     0x05838
#define E1000_IP4AT    0x05840
#define E1000_IP6AT    0x05880
#define E1000_WUPL     0x05900
#define E1000_WUPM     0x05A00
#define E1000_FFLT     0x05F00
#define E1000_FFMT     0x09000
#define E1000_FFVT     0x09800

#define E1000_MTA_WORDS  128
#define E1000_VFTA_WORDS 128
#define E1000_RAR_COUNT  16

/* ---- statistics (read to clear) ---------------------------------------- */
#define E1000_STATS_FIRST 0x04000
#define E1000_STATS_LAST  0x04124 /* last counter register, inclusive */
#define E1000_CRCERRS     0x04000
#define E1000_MPC         0x04010
#define E1000_RLEC        0x04040
#define E1000_XONRXC      0x04048
#define E1000_XONTXC      0x0404C
#define E1000_XOFFRXC     0x04050
#define E1000_XOFFTXC     0x04054
#define E1000_FCRUC       0x04058
#define E1000_PRC64       0x0405C
#define E1000_PRC127      0x04060
#define E1000_PRC255      0x04064
#define E1000_PRC511      0x04068
#define E1000_PRC1023     0x0406C
#define E1000_PRC1522     0x04070
#define E1000_GPRC        0x04074
#define E1000_BPRC        0x04078
#define E1000_MPRC        0x0407C
#define E1000_GPTC        0x04080
#define E1000_GORCL       0x04088
#define E1000_GORCH       0x0408C
#define E1000_GOTCL       0x04090
#define E1000_GOTCH       0x04094
#define E1000_RNBC        0x040A0
#define E1000_RUC         0x040A4
#define E1000_ROC         0x040AC
#define E1000_TORL        0x040C0
#define E1000_TORH        0x040C4
#define E1000_TOTL        0x040C8
#define E1000_TOTH        0x040CC
#define E1000_TPR         0x040D0
#define E1000_TPT         0x040D4
#define E1000_PTC64       0x040D8
#define E1000_PTC127      0x040DC
#define E1000_PTC255      0x040E0
#define E1000_PTC511      0x040E4
#define E1000_PTC1023     0x040E8
#define E1000_PTC1522     0x040EC
#define E1000_MPTC        0x040F0
#define E1000_BPTC        0x040F4
#define E1000_TSCTC       0x040F8
#define E1000_TSCTFC      0x040FC

/* ---- CTRL / STATUS ----------------------------------------------------- */
#define E1000_CTRL_FD       0x00000001
#define E1000_CTRL_ASDE     0x00000020
#define E1000_CTRL_SLU      0x00000040
#define E1000_CTRL_SPD_1000 0x00000200
#define E1000_CTRL_RST      0x04000000
#define E1000_CTRL_RFCE     0x08000000 /* honour received PAUSE frames */
#define E1000_CTRL_TFCE     0x10000000 /* send PAUSE frames */
#define E1000_CTRL_VME      0x40000000
#define E1000_CTRL_PHY_RST  0x80000000

#define E1000_STATUS_FD         0x00000001
#define E1000_STATUS_LU         0x00000002
#define E1000_STATUS_SPEED_1000 0x00000080

/* ---- EEPROM ------------------------------------------------------------ */
#define E1000_EECD_SK   0x00000001
#define E1000_EECD_CS   0x00000002
#define E1000_EECD_DI   0x00000004
#define E1000_EECD_DO   0x00000008
#define E1000_EECD_FWE  0x00000030
#define E1000_EECD_REQ  0x00000040
#define E1000_EECD_GNT  0x00000080
#define E1000_EECD_PRES 0x00000100
#define E1000_EECD_SIZE 0x00000200 /* 0: 64 words, 6 address bits */

#define E1000_EERD_START      0x00000001
#define E1000_EERD_DONE       0x00000010
#define E1000_EERD_ADDR_SHIFT 8
#define E1000_EERD_DATA_SHIFT 16

#define EEPROM_WORDS          64
#define EEPROM_ADDR_BITS      6
#define EEPROM_OPCODE_BITS    3
#define EEPROM_READ_OPCODE_MW 0x6
#define EEPROM_CHECKSUM_WORD  0x3F
#define EEPROM_SUM            0xBABA

/* ---- MDIC and the PHY -------------------------------------------------- */
#define E1000_MDIC_DATA_MASK 0x0000FFFF
#define E1000_MDIC_REG_SHIFT 16
#define E1000_MDIC_PHY_SHIFT 21
#define E1000_MDIC_OP_WRITE  0x04000000
#define E1000_MDIC_OP_READ   0x08000000
#define E1000_MDIC_READY     0x10000000
#define E1000_MDIC_INT_EN    0x20000000
#define E1000_MDIC_ERROR     0x40000000
#define E1000_PHY_ADDR       1

#define PHY_CTRL              0x00
#define PHY_STATUS            0x01
#define PHY_ID1               0x02
#define PHY_ID2               0x03
#define PHY_AUTONEG_ADV       0x04
#define PHY_LP_ABILITY        0x05
#define NWAY_LPAR_PAUSE       0x0400 /* link partner: symmetric PAUSE */
#define NWAY_LPAR_ASM_DIR     0x0800 /* link partner: asymmetric PAUSE */
#define EE_PAUSE              0x1000 /* EEPROM word 0x0F: PAUSE capable */
#define EE_ASM_DIR            0x2000 /* EEPROM word 0x0F: asymmetric PAUSE */
#define PHY_AUTONEG_EXP       0x06
#define PHY_1000T_CTRL        0x09
#define PHY_1000T_STATUS      0x0A
#define PHY_EXT_STATUS        0x0F
#define M88_PHY_SPEC_CTRL     0x10
#define M88_PHY_SPEC_STATUS   0x11
#define M88_INT_STATUS        0x13
#define M88_EXT_PHY_SPEC_CTRL 0x14
#define M88_RX_ERR_CNTR       0x15
#define PHY_REGS              32

#define MII_CR_RESTART_AUTO_NEG 0x0200
#define MII_CR_POWER_DOWN       0x0800
#define MII_CR_RESET            0x8000
#define MII_SR_LINK_STATUS      0x0004
#define MII_SR_AUTONEG_COMPLETE 0x0020

#define M88E1011_ID1 0x0141 /* PHY id 0x01410C20: M88E1011, as on the 82540EM */
#define M88E1011_ID2 0x0C20

/* ---- interrupts -------------------------------------------------------- */
#define E1000_ICR_TXDW   0x00000001
#define E1000_ICR_TXQE   0x00000002
#define E1000_ICR_LSC    0x00000004
#define E1000_ICR_RXSEQ  0x00000008
#define E1000_ICR_RXDMT0 0x00000010
#define E1000_ICR_RXO    0x00000040
#define E1000_ICR_RXT0   0x00000080
#define E1000_ICR_MDAC   0x00000200
#define E1000_ICR_VALID  0x0001FFFF /* causes the 82540 defines */

/* ---- receive ----------------------------------------------------------- */
#define E1000_RCTL_EN          0x00000002
#define E1000_RCTL_UPE         0x00000008
#define E1000_RCTL_MPE         0x00000010
#define E1000_RCTL_LPE         0x00000020
#define E1000_RCTL_RDMTS_MASK  0x00000300
#define E1000_RCTL_RDMTS_SHIFT 8
#define E1000_RCTL_MO_SHIFT    12
#define E1000_RCTL_BAM         0x00008000
#define E1000_RCTL_BSIZE_MASK  0x00030000
#define E1000_RCTL_BSIZE_SHIFT 16
#define E1000_RCTL_VFE         0x00040000
#define E1000_RCTL_BSEX        0x02000000
#define E1000_RCTL_SECRC       0x04000000

#define E1000_RXCSUM_PCSS_MASK 0x000000FF
#define E1000_RXCSUM_IPOFL     0x00000100
#define E1000_RXCSUM_TUOFL     0x00000200

#define E1000_RAH_AV 0x80000000

/* Legacy receive descriptor: addr(8) length(2) csum(2) status(1) errors(1)
 * special(2). */
#define E1000_RXD_STAT_DD    0x01
#define E1000_RXD_STAT_EOP   0x02
#define E1000_RXD_STAT_IXSM  0x04
#define E1000_RXD_STAT_VP    0x08
#define E1000_RXD_STAT_TCPCS 0x20
#define E1000_RXD_STAT_IPCS  0x40
#define E1000_RXD_ERR_TCPE   0x20
#define E1000_RXD_ERR_IPE    0x40

/* ---- transmit ---------------------------------------------------------- */
#define E1000_TCTL_EN  0x00000002
#define E1000_TCTL_PSP 0x00000008

/* Descriptor command byte (bits 31:24 of the second dword) and type. */
#define E1000_TXD_CMD_EOP    0x01
#define E1000_TXD_CMD_IFCS   0x02
#define E1000_TXD_CMD_IC     0x04 /* legacy: insert checksum */
#define E1000_TXD_CMD_TSE    0x04 /* extended: TCP segmentation */
#define E1000_TXD_CMD_RS     0x08
#define E1000_TXD_CMD_DEXT   0x20
#define E1000_TXD_CMD_VLE    0x40
#define E1000_TXD_CMD_IDE    0x80
#define E1000_TXD_DTYP_CTX   0x0
#define E1000_TXD_DTYP_DATA  0x1
#define E1000_TXD_STAT_DD    0x00000001
#define E1000_TXD_POPTS_IXSM 0x01
#define E1000_TXD_POPTS_TXSM 0x02
/* Context descriptor TUCMD bits. */
#define E1000_TUCMD_TCP 0x01
#define E1000_TUCMD_IP  0x02
#define E1000_TUCMD_TSE 0x04

/* ---- reset values ------------------------------------------------------ */
#define E1000_CTRL_DEFAULT                                                               \
    (E1000_CTRL_FD | E1000_CTRL_ASDE | E1000_CTRL_SLU | E1000_CTRL_SPD_1000)
#define E1000_LEDCTL_DEFAULT 0x07068302
#define E1000_PBA_DEFAULT    0x00100030 /* 48 KiB receive, 16 KiB transmit */
#define E1000_PBA_TOTAL_KB   64
#define E1000_VET_DEFAULT    0x8100

/* Interval units: ITR counts 256 ns, the delay timers 1.024 us. */
#define E1000_ITR_UNIT_PS   256000ull
#define E1000_DELAY_UNIT_PS 1024000ull

/* Largest frame the 82540 handles (16 KiB buffers, MAX_JUMBO_FRAME_SIZE). */
#define E1000_MAX_FRAME     16128
#define E1000_ETH_FCS       4
#define E1000_ETH_MIN_FRAME 60   /* without FCS */
#define E1000_STD_FRAME_FCS 1522 /* largest frame with a VLAN tag and FCS, LPE off */

#endif
