# SPDX-License-Identifier: GPL-2.0
"""A64 decoding of the barrier and TLBI instructions the TCG plugin reports
(plugin/vtinsn.c): shared by compare.py and validation_doc.py."""

# ---- A64 decoding ---------------------------------------------------------------------------
TLBI_NAMES = {  # (op1, CRm, op2) of TLBI <op>, CRn = 8
    (0, 3, 0): "vmalle1is", (0, 3, 1): "vae1is", (0, 3, 2): "aside1is", (0, 3, 3): "vaae1is",
    (0, 3, 5): "vale1is", (0, 3, 7): "vaale1is", (0, 7, 0): "vmalle1", (0, 7, 1): "vae1",
    (0, 7, 2): "aside1", (0, 7, 3): "vaae1", (0, 7, 5): "vale1", (0, 7, 7): "vaale1",
    (0, 2, 1): "rvae1is", (0, 2, 3): "rvaae1is", (0, 2, 5): "rvale1is", (0, 2, 7): "rvaale1is",
    (0, 1, 0): "vmalle1os", (0, 1, 1): "vae1os", (0, 1, 3): "vaae1os", (0, 1, 7): "vaale1os",
}
OPTS = {15: "sy", 14: "st", 13: "ld", 11: "ish", 10: "ishst", 9: "ishld", 7: "nsh",
        6: "nshst", 5: "nshld", 3: "osh", 2: "oshst", 1: "oshld"}


def decode(w):
    if (w & 0xFFF8F000) == 0xD5088000:
        op1, crm, op2 = (w >> 16) & 7, (w >> 8) & 15, (w >> 5) & 7
        return "tlbi", TLBI_NAMES.get((op1, crm, op2), "op1=%d,CRm=%d,op2=%d" % (op1, crm, op2))
    crm = (w >> 8) & 15
    if (w & 0xFFFFF0FF) == 0xD503309F:
        return "dsb", {0: "ssbb", 4: "pssbb"}.get(crm, OPTS.get(crm, str(crm)))
    if (w & 0xFFFFF0FF) == 0xD50330BF:
        return "dmb", OPTS.get(crm, str(crm))
    if (w & 0xFFFFF0FF) == 0xD50330DF:
        return "isb", "sy"
    return "other", "0x%08x" % w
