/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record encoding of the fast trace.dat harness (fuzz-dat-records.h),
 * shared with the seed maker (make-dat-records.c).  An input is a run of
 * records, each:
 *
 *   u8  sel	bits 0-5: index of the event in vt_dat_event_format[] whose
 *		ID is written over the record's common_type (63, or an index
 *		past the table: the data's own common_type is kept);
 *		bit 6: the ring buffer reports lost events before it;
 *		bit 7: recorded on CPU 1 (else CPU 0)
 *   u16 dt	little endian: microseconds since the previous record
 *   u8  len	bytes of event data that follow (common fields first), as
 *		libtracecmd hands them to the iterator's callback
 */
#ifndef VT_FUZZ_DAT_RECORDS_ENC_H
#define VT_FUZZ_DAT_RECORDS_ENC_H

#define VT_DAT_MAX_EVENTS 63
#define VT_DAT_SEL_EVENT 0x3f
#define VT_DAT_SEL_MISSED 0x40
#define VT_DAT_SEL_CPU1 0x80
#define VT_DAT_REC_HEAD 4

#endif
