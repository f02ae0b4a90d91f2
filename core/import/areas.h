/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reconstruction's bookkeeping (areas.c), shared by the rules
 * (reconstruct.c) and the deciding of areas (decide.c).
 */
#ifndef VT_IMPORT_AREAS_H
#define VT_IMPORT_AREAS_H

#include "core/import/internal.h"

/* A removed slot of the area table (open addressing). */
extern const char vt_im_amap_tomb;
#define AMAP_TOMB ((struct area *)&vt_im_amap_tomb)

/* small helpers; a failure sets im->oom */
bool vt_im_vec_push(struct vt_import *im, struct u64vec *v, uint64_t x);
const char *vt_im_intern(struct vt_import *im, const char *s);
void vt_im_warnf(struct vt_import *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void vt_im_see_pointer(struct vt_import *im, uint64_t p);

/* areas by allocation index */
struct area *vt_im_area_at(const struct vt_import *im, long idx);
void vt_im_amap_del(struct vt_import *im, long idx);
void vt_im_area_free(struct area *a);
struct area *vt_im_area_new(struct vt_import *im);
bool vt_im_area_final(const struct area *a);
void vt_im_unpin(struct vt_import *im, const struct area *a);
void vt_im_set_ref(struct vt_import *im, int *ref, long idx);

/* tables of areas by start address (live areas, vm_map_ram, blocks) */
struct area *vt_im_vatab_find(struct vt_import *im, const struct vt_im_vatab *t,
			      uint64_t va, size_t *pos);
struct area *vt_im_vatab_del(struct vt_import *im, struct vt_im_vatab *t, uint64_t va);
bool vt_im_vatab_add(struct vt_import *im, struct vt_im_vatab *t, struct area *a);
void vt_im_vatab_free(struct vt_im_vatab *t);

/* live areas by start address */
long vt_im_live_find(struct vt_import *im, uint64_t va, size_t *pos);
void vt_im_live_del(struct vt_import *im, uint64_t va);
bool vt_im_live_va_add(struct vt_import *im, struct area *a);

/* tasks and their stacks of open areas */
struct task *vt_im_task_get(struct vt_import *im, int pid);
struct area *vt_im_top_open(struct vt_import *im, struct task *t);
void vt_im_push_open(struct vt_import *im, struct task *t, struct area *a);
void vt_im_pop_open(struct vt_import *im, struct task *t, struct area *a);

/* the window of events not yet written */
struct slot *vt_im_slot_at(struct vt_import *im, long i);
long vt_im_slot_new(struct vt_import *im, enum vt_op op,
		    const struct kev *k, long area);
void vt_im_fill_unmap(struct vt_import *im, struct area *a);
void vt_im_purge_end(struct vt_import *im, struct task *t);

#endif
