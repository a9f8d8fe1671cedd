/*
 * i40e_regs.h - register offsets, bit fields, descriptor and admin-queue
 * layouts of the Intel XL710 as the Linux i40e driver uses them (facts from
 * the driver's headers; names follow the driver's where they exist so the
 * two can be read side by side).
 */
#ifndef MORTAR_I40E_REGS_H
#define MORTAR_I40E_REGS_H

#define I40E_VENDOR_INTEL 0x8086
#define I40E_DEV_QSFP_A   0x1583
#define I40E_SUBSYS_ID    0x0001
#define I40E_REVISION     0x02
#define I40E_BAR0_SIZE    (4u << 20)
#define I40E_BAR3_SIZE    (32u << 10) /* MSI-X table and PBA */
#define I40E_MSIX_PBA_OFF (16u << 10)

/* ---- reset, firmware and NVM status ---- */
#define I40E_PFGEN_CTRL                 0x00092400
#define I40E_PFGEN_CTRL_PFSWR           0x1
#define I40E_GLGEN_RSTAT                0x000B8188
#define I40E_GLGEN_RSTCTL               0x000B8180
#define I40E_GLGEN_RSTCTL_GRSTDEL_SHIFT 0
#define I40E_GLGEN_RTRIG                0x000B8190
#define I40E_GLGEN_STAT                 0x000B612C
#define I40E_GL_FWSTS                   0x00083048
#define I40E_GLNVM_ULD                  0x000B6008
#define I40E_GLNVM_ULD_DONE             0x18 /* CONF_CORE_DONE and CONF_GLOBAL_DONE */
#define I40E_GLNVM_GENS                 0x000B6100
#define I40E_GLNVM_GENS_NVM_PRES        0x1
#define I40E_GLNVM_GENS_SR_SIZE_SHIFT   5
#define I40E_GLNVM_FLA                  0x000B6108
#define I40E_GLNVM_FLA_LOCKED           (1u << 6)
#define I40E_GLNVM_SRCTL                0x000B6110
#define I40E_GLNVM_SRCTL_ADDR_SHIFT     14
#define I40E_GLNVM_SRCTL_ADDR_MASK      0x7FFFu
#define I40E_GLNVM_SRCTL_START          (1u << 30)
#define I40E_GLNVM_SRCTL_DONE           (1u << 31)
#define I40E_GLNVM_SRDATA               0x000B6114
#define I40E_GLNVM_SRDATA_SHIFT         16
#define I40E_GLPCI_CNF2                 0x000BE494
#define I40E_GLPCI_CNF2_PF_N_SHIFT      2
#define I40E_GLPCI_CNF2_VF_N_SHIFT      13
#define I40E_PF_FUNC_RID                0x0009C000
#define I40E_PFGEN_PORTNUM              0x001C0480
#define I40E_PFLAN_QALLOC               0x001C0400
#define I40E_PFLAN_QALLOC_LAST_SHIFT    16
#define I40E_PFLAN_QALLOC_VALID         (1u << 31)
#define I40E_PF_VT_PFALLOC              0x001C0500
#define I40E_GLLAN_RCTL_0               0x0012A500
#define I40E_PRTGEN_CNF                 0x000B8120
#define I40E_PRTGEN_CNF_PORT_DIS        0x1
#define I40E_GLVFGEN_TIMER              0x000881BC
#define I40E_PRTGL_SAH                  0x001E2140 /* max frame size in bits 16-31 */
#define I40E_PRTGL_SAH_MFS_SHIFT        16
#define I40E_GLQF_FDEVICTENA1           0x00270388

/* ---- admin queue ---- */
#define I40E_PF_ATQBAL      0x00080000
#define I40E_PF_ATQBAH      0x00080100
#define I40E_PF_ATQLEN      0x00080200
#define I40E_PF_ATQH        0x00080300
#define I40E_PF_ATQT        0x00080400
#define I40E_PF_ARQBAL      0x00080080
#define I40E_PF_ARQBAH      0x00080180
#define I40E_PF_ARQLEN      0x00080280
#define I40E_PF_ARQH        0x00080380
#define I40E_PF_ARQT        0x00080480
#define I40E_AQLEN_LEN_MASK 0x3FFu
#define I40E_AQLEN_ENABLE   (1u << 31)
#define I40E_AQLEN_OVFL     (1u << 29)

#define I40E_AQ_DESC_SIZE 32
#define I40E_AQ_FLAG_DD   0x0001
#define I40E_AQ_FLAG_CMP  0x0002
#define I40E_AQ_FLAG_ERR  0x0004
#define I40E_AQ_FLAG_BUF  0x1000
#define I40E_AQ_FLAG_RD   0x0400
#define I40E_AQ_FLAG_SI   0x2000
#define I40E_AQ_MAX_BUF   4096

/* admin-queue return codes */
#define I40E_AQ_RC_OK     0
#define I40E_AQ_RC_EPERM  1
#define I40E_AQ_RC_ENOENT 2
#define I40E_AQ_RC_ENOMEM 9
#define I40E_AQ_RC_EINVAL 14
#define I40E_AQ_RC_ENOSYS 17

/* ---- HMC ---- */
#define I40E_PFHMC_SDCMD          0x000C0000
#define I40E_PFHMC_SDCMD_WR       (1u << 31)
#define I40E_PFHMC_SDCMD_IDX_MASK 0xFFFu
#define I40E_PFHMC_SDDATALOW      0x000C0100
#define I40E_PFHMC_SDDATAHIGH     0x000C0200
#define I40E_PFHMC_PDINV          0x000C0300
#define I40E_PFHMC_ERRORINFO      0x000C0400
#define I40E_PFHMC_ERRORDATA      0x000C0500
#define I40E_SD_VALID             0x1u
#define I40E_SD_DIRECT            0x2u
#define I40E_GLHMC_LANTXOBJSZ     0x000C2004
#define I40E_GLHMC_LANQMAX        0x000C2008
#define I40E_GLHMC_LANRXOBJSZ     0x000C200C
#define I40E_GLHMC_FCOEFMAX       0x000C20D0
/* PMFCOEFMAX: the driver's filter-control check needs room for its default
 * FCoE hash (1K) and context (512) sizes even when FCoE is off */
#define I40E_FCOE_FILTERS_MAX    0x1000
#define I40E_GLHMC_LANTXBASE(pf) (0x000C6200 + 4 * (pf))
#define I40E_GLHMC_LANTXCNT(pf)  (0x000C6300 + 4 * (pf))
#define I40E_GLHMC_LANRXBASE(pf) (0x000C6400 + 4 * (pf))
#define I40E_GLHMC_LANRXCNT(pf)  (0x000C6500 + 4 * (pf))
#define I40E_HMC_BASE_UNIT       512u
#define I40E_HMC_DIRECT_BP       (2u << 20)
#define I40E_HMC_PAGED_BP        4096u
#define I40E_TXQ_CTX_ORDER       7 /* 128-byte TX queue contexts */
#define I40E_RXQ_CTX_ORDER       5 /* 32-byte RX queue contexts */

/* ---- queues ---- */
#define I40E_QTX_ENA(q)          (0x00100000 + 4 * (q))
#define I40E_QTX_CTL(q)          (0x00104000 + 4 * (q))
#define I40E_QTX_TAIL(q)         (0x00108000 + 4 * (q))
#define I40E_QTX_HEAD(q)         (0x000E4000 + 4 * (q))
#define I40E_QRX_ENA(q)          (0x00120000 + 4 * (q))
#define I40E_QRX_TAIL(q)         (0x00128000 + 4 * (q))
#define I40E_QENA_REQ            0x1u
#define I40E_QENA_STAT           0x4u
#define I40E_GLLAN_TXPRE_QDIS(i) (0x000E6500 + 4 * (i))

/* ---- interrupts ---- */
#define I40E_PFINT_ICR0            0x00038780
#define I40E_PFINT_ICR0_ENA        0x00038800
#define I40E_PFINT_DYN_CTL0        0x00038480
#define I40E_PFINT_LNKLST0         0x00038500
#define I40E_PFINT_STAT_CTL0       0x00038400
#define I40E_PFINT_ITR0(i)         (0x00038000 + 128 * (i))
#define I40E_PFINT_DYN_CTLN(v)     (0x00034800 + 4 * (v))
#define I40E_PFINT_LNKLSTN(v)      (0x00035000 + 4 * (v))
#define I40E_PFINT_RATEN(v)        (0x00035800 + 4 * (v))
#define I40E_PFINT_ITRN(i, v)      (0x00030000 + 2048 * (i) + 4 * (v))
#define I40E_QINT_RQCTL(q)         (0x0003A000 + 4 * (q))
#define I40E_QINT_TQCTL(q)         (0x0003C000 + 4 * (q))
#define I40E_ICR0_INTEVENT         (1u << 0)
#define I40E_ICR0_LINK_STAT_CHANGE (1u << 25)
#define I40E_ICR0_ADMINQ           (1u << 30)
#define I40E_ICR0_SWINT            (1u << 31)
#define I40E_DYN_INTENA            (1u << 0)
#define I40E_DYN_CLEARPBA          (1u << 1)
#define I40E_DYN_SWINT_TRIG        (1u << 2)
#define I40E_DYN_ITR_INDX_SHIFT    3
#define I40E_DYN_INTERVAL_SHIFT    5
#define I40E_DYN_INTERVAL_MASK     0xFFFu
#define I40E_DYN_WB_ON_ITR         (1u << 30)
#define I40E_DYN_INTENA_MSK        (1u << 31)
#define I40E_QINT_MSIX_INDX_MASK   0xFFu
#define I40E_QINT_ITR_INDX_SHIFT   11
#define I40E_QINT_CAUSE_ENA        (1u << 30)
#define I40E_ITR_UNIT_PS           2000000ull /* the ITR counts 2 us */

/* ---- statistics (port 0 and VSI statistics index 0) ---- */
#define I40E_STATS_FIRST   0x00300000
#define I40E_STATS_END     0x00370000
#define I40E_GLPRT_CRCERRS 0x00300080
#define I40E_GLPRT_RUC     0x00300100
#define I40E_GLPRT_ROC     0x00300120
#define I40E_GLPRT_GORCL   0x00300000
/* PRC64L: then 127, 255, 511, 1023, 1522, 9522 every 0x20 (PTC64L alike) */
#define I40E_GLPRT_PRC64L 0x00300480
#define I40E_GLPRT_UPRCL  0x003005A0
#define I40E_GLPRT_MPRCL  0x003005C0
#define I40E_GLPRT_BPRCL  0x003005E0
#define I40E_GLPRT_RDPC   0x00300600
#define I40E_GLPRT_GOTCL  0x00300680
#define I40E_GLPRT_PTC64L 0x003006A0
#define I40E_GLPRT_UPTCL  0x003009C0
#define I40E_GLPRT_MPTCL  0x003009E0
#define I40E_GLPRT_BPTCL  0x00300A00
#define I40E_GLPRT_TDOLD  0x00300A20
/* link flow control counters of port 0, 32 bits */
#define I40E_GLPRT_LXONRXC  0x00300140
#define I40E_GLPRT_LXOFFRXC 0x00300160
#define I40E_GLPRT_LXONTXC  0x00300980
#define I40E_GLPRT_LXOFFTXC 0x003009A0
/* VSI statistics index 0 */
#define I40E_GLV_GORCL 0x00358000
#define I40E_GLV_UPRCL 0x0036C000
#define I40E_GLV_MPRCL 0x0036CC00
#define I40E_GLV_BPRCL 0x0036D800
#define I40E_GLV_RDPC  0x00310000
#define I40E_GLV_GOTCL 0x00328000
#define I40E_GLV_UPTCL 0x0033C000
#define I40E_GLV_MPTCL 0x0033CC00
#define I40E_GLV_BPTCL 0x0033D800
#define I40E_GLV_TEPC  0x00344000

/* ---- transmit descriptors (16 bytes) ---- */
#define I40E_TXD_DTYPE_MASK         0xFull
#define I40E_TXD_DTYPE_DATA         0x0
#define I40E_TXD_DTYPE_CONTEXT      0x1
#define I40E_TXD_DTYPE_DONE         0xF
#define I40E_TXD_CMD_SHIFT          4
#define I40E_TXD_CMD_EOP            0x0001
#define I40E_TXD_CMD_RS             0x0002
#define I40E_TXD_CMD_IL2TAG1        0x0008
#define I40E_TXD_CMD_IIPT_MASK      0x0060
#define I40E_TXD_CMD_IIPT_IPV6      0x0020
#define I40E_TXD_CMD_IIPT_IPV4      0x0040
#define I40E_TXD_CMD_IIPT_IPV4_CSUM 0x0060
#define I40E_TXD_CMD_L4T_MASK       0x0300
#define I40E_TXD_CMD_L4T_TCP        0x0100
#define I40E_TXD_CMD_L4T_SCTP       0x0200
#define I40E_TXD_CMD_L4T_UDP        0x0300
#define I40E_TXD_OFFSET_SHIFT       16
#define I40E_TXD_BUF_SZ_SHIFT       34
#define I40E_TXD_BUF_SZ_MASK        0x3FFFull
#define I40E_TXD_L2TAG1_SHIFT       48
#define I40E_TXD_CTX_CMD_TSO        0x0001
#define I40E_TXD_CTX_CMD_IL2TAG2    0x0004
#define I40E_TXD_CTX_TSO_LEN_SHIFT  30
#define I40E_TXD_CTX_TSO_LEN_MASK   0x3FFFFull
#define I40E_TXD_CTX_MSS_SHIFT      50
#define I40E_TXD_CTX_MSS_MASK       0x3FFFull

/* ---- receive descriptors (write-back, quad-word 1) ---- */
#define I40E_RXD_STATUS_DD      (1ull << 0)
#define I40E_RXD_STATUS_EOP     (1ull << 1)
#define I40E_RXD_STATUS_L3L4P   (1ull << 3)
#define I40E_RXD_STATUS_CRCP    (1ull << 4)
#define I40E_RXD_ERROR_SHIFT    19
#define I40E_RXD_ERROR_IPE      (1ull << 3)
#define I40E_RXD_ERROR_L4E      (1ull << 4)
#define I40E_RXD_PTYPE_SHIFT    30
#define I40E_RXD_LEN_PBUF_SHIFT 38
#define I40E_PTYPE_L2_PAY2      1
#define I40E_PTYPE_L2_ARP       11
#define I40E_PTYPE_IPV4_PAY3    23
#define I40E_PTYPE_IPV4_FRAG    22
#define I40E_PTYPE_IPV4_UDP     24
#define I40E_PTYPE_IPV4_TCP     26
#define I40E_PTYPE_IPV6_FRAG    88
#define I40E_PTYPE_IPV6_PAY3    89
#define I40E_PTYPE_IPV6_UDP     90
#define I40E_PTYPE_IPV6_TCP     92

#endif
