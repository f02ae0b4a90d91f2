// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vtinsn: a QEMU TCG plugin that counts, between two marker instructions executed by the
 * guest (hint #120 opens a bracket, hint #121 closes it), every executed TLBI, DSB, DMB and
 * ISB at a kernel address (bit 63 set), per instruction address.
 *
 * Exceptions taken inside a bracket (timer and other interrupts) are left out: the first
 * instruction of an exception vector entry (a 0x80-aligned slot of a vector table named by
 * the vec=BASE:LEN arguments) raises a depth and ERET lowers it; only depth 0 counts, the rest is
 * reported apart.  The guest runs with one vCPU.
 *
 * Output (out=FILE), one line per instruction site with a non-zero count when a bracket
 * closes:   S SEQ VADDR INSN COUNT IRQCOUNT
 * then      C SEQ EXCEPTIONS
 * where INSN is the 32-bit encoding (the reader decodes the kind), SEQ counts brackets from 0.
 *
 * Debian's qemu-system-arm does not ship qemu-plugin.h, so the few calls used are declared
 * here as QEMU 7.2 defines them (include/qemu/qemu-plugin.h, QEMU_PLUGIN_VERSION 1).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the QEMU plugin API subset (QEMU 7.2) ---- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- A64 encodings ---- */
#define HINT_OPEN   0xd5032f1fu  /* hint #120 */
#define HINT_CLOSE  0xd5032f3fu  /* hint #121 */
#define ERET        0xd69f03e0u
#define ERETAA      0xd69f0bffu
#define ERETAB      0xd69f0fffu

static bool is_counted(uint32_t w)
{
	if ((w & 0xfff8f000u) == 0xd5088000u)   /* SYS op0=1 CRn=8: TLBI */
		return true;
	if ((w & 0xfffff0ffu) == 0xd503309fu)   /* DSB <option> */
		return true;
	if ((w & 0xfffff0ffu) == 0xd50330bfu)   /* DMB <option> */
		return true;
	if ((w & 0xfffff0ffu) == 0xd50330dfu)   /* ISB */
		return true;
	return false;
}

struct site {
	uint64_t vaddr;
	uint32_t insn;
	uint64_t count;
	uint64_t irq;
};

#define MAX_VEC 16
static uint64_t vec_base[MAX_VEC], vec_len[MAX_VEC];
static int nvec;

static struct site **sites;
static size_t nsites, capsites;
static FILE *out;
static bool open_;
static unsigned long depth, exceptions, seq;

static void on_open(unsigned int vcpu, void *u)
{
	(void)vcpu;
	(void)u;
	open_ = true;
	depth = 0;
	exceptions = 0;
}

static void on_close(unsigned int vcpu, void *u)
{
	size_t i;

	(void)vcpu;
	(void)u;
	if (!open_)
		return;
	for (i = 0; i < nsites; i++) {
		struct site *s = sites[i];

		if (s->count || s->irq)
			fprintf(out, "S %lu 0x%" PRIx64 " 0x%08" PRIx32 " %" PRIu64 " %" PRIu64 "\n",
				seq, s->vaddr, s->insn, s->count, s->irq);
		s->count = 0;
		s->irq = 0;
	}
	fprintf(out, "C %lu %lu\n", seq, exceptions);
	fflush(out);
	seq++;
	open_ = false;
}

static void on_counted(unsigned int vcpu, void *u)
{
	struct site *s = u;

	(void)vcpu;
	if (!open_)
		return;
	if (depth)
		s->irq++;
	else
		s->count++;
}

static void on_vector(unsigned int vcpu, void *u)
{
	(void)vcpu;
	(void)u;
	if (open_) {
		depth++;
		exceptions++;
	}
}

static void on_eret(unsigned int vcpu, void *u)
{
	(void)vcpu;
	(void)u;
	if (open_ && depth)
		depth--;
}

static bool is_vector_entry(uint64_t va)
{
	int i;

	for (i = 0; i < nvec; i++)
		if (va >= vec_base[i] && va < vec_base[i] + vec_len[i] &&
		    ((va - vec_base[i]) & 0x7f) == 0)
			return true;
	return false;
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		uint32_t w;

		if (!(va >> 63) || qemu_plugin_insn_size(insn) != 4)
			continue;
		memcpy(&w, qemu_plugin_insn_data(insn), 4);
		if (is_vector_entry(va))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_vector,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (w == HINT_OPEN) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_open,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else if (w == HINT_CLOSE) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_close,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else if (w == ERET || w == ERETAA || w == ERETAB) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_eret,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else if (is_counted(w)) {
			struct site *s = calloc(1, sizeof(*s));

			if (!s)
				abort();
			if (nsites == capsites) {
				capsites = capsites ? 2 * capsites : 1024;
				sites = realloc(sites, capsites * sizeof(*sites));
				if (!sites)
					abort();
			}
			s->vaddr = va;
			s->insn = w;
			sites[nsites++] = s;
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_counted,
							       QEMU_PLUGIN_CB_NO_REGS, s);
		}
	}
}

static void on_exit_(qemu_plugin_id_t id, void *u)
{
	size_t i;

	(void)id;
	(void)u;
	fprintf(out, "E %lu\n", seq);
	fclose(out);
	for (i = 0; i < nsites; i++)
		free(sites[i]);
	free(sites);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "vec=", 4)) {
			/* vec=BASE:LEN in hex, one argument per vector table */
			char *p = argv[i] + 4;

			if (nvec == MAX_VEC)
				return -1;
			vec_base[nvec] = strtoull(p, &p, 16);
			if (*p != ':')
				return -1;
			vec_len[nvec++] = strtoull(p + 1, &p, 16);
			if (*p)
				return -1;
		} else {
			fprintf(stderr, "vtinsn: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!path)
		return -1;
	out = fopen(path, "w");
	if (!out)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
	return 0;
}
