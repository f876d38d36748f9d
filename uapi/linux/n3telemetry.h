/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * n3telemetry: layout of the binary snapshot read from /dev/n3telemetry.
 *
 * Reading the device from offset 0 to EOF returns a struct
 * n3t_snapshot_header followed by nr_records records of record_size bytes,
 * one per CPU online when the snapshot was taken, in CPU order.  Fields are
 * in the byte order of the kernel that wrote them (little-endian on usual
 * arm64 systems).  A reader checks magic and abi_version, then uses
 * header_size and record_size to find the records, so fields appended in a
 * later version are skipped.
 *
 * Each open file has its own snapshot: a read at offset 0 takes it, reads
 * at later offsets continue it whatever other readers do, so a reader that
 * reads from 0 to EOF gets one consistent set of records; another read at
 * offset 0 (pread, lseek) takes a new one.
 *
 * Indexes: event i is the i-th of the N3T_SNAP_NR_EVENTS events the module
 * knows, in ascending order of event number; metric i is the i-th of the
 * N3T_SNAP_NR_METRICS metrics, in ascending (C locale) order of the
 * specification's metric name.  The `events` and group files name them.
 *
 * Fixed point: value[i] is the metric in units of 1/fixed_scale of its unit
 * (fixed_scale is 1000000: 21.37 percent is 21370000).  value[i] means
 * something only when bit i of valid is set (bit i is bit i % 64 of
 * valid[i / 64]); otherwise the metric is undefined ("nan" in the text files).
 */
#ifndef _UAPI_LINUX_N3TELEMETRY_H
#define _UAPI_LINUX_N3TELEMETRY_H

#include <linux/types.h>

#define N3T_SNAP_MAGIC		0x5354334eU	/* "N3TS" */
#define N3T_SNAP_ABI_VERSION	1
#define N3T_SNAP_NR_EVENTS	66
#define N3T_SNAP_NR_METRICS	67
#define N3T_SNAP_FIXED_SCALE	1000000

/**
 * struct n3t_snapshot_header - start of the snapshot
 * @magic: N3T_SNAP_MAGIC
 * @abi_version: N3T_SNAP_ABI_VERSION
 * @header_size: sizeof(struct n3t_snapshot_header) of the writer
 * @record_size: size of one record, at least sizeof(struct n3t_snapshot_record)
 * @nr_records: number of records that follow
 * @nr_events: N3T_SNAP_NR_EVENTS
 * @nr_metrics: N3T_SNAP_NR_METRICS
 * @slots: rename slots per cycle used by the formulas
 * @interval_ms: configured interval length
 * @groups: selected metric groups, bit g for the g-th name of available_groups
 * @fixed_scale: N3T_SNAP_FIXED_SCALE
 */
struct n3t_snapshot_header {
	__u32 magic;
	__u32 abi_version;
	__u32 header_size;
	__u32 record_size;
	__u32 nr_records;
	__u32 nr_events;
	__u32 nr_metrics;
	__u32 slots;
	__u32 interval_ms;
	__u32 groups;
	__u64 fixed_scale;
};

#define N3T_REC_VALID	0x1U	/* at least one interval completed */

/**
 * struct n3t_snapshot_record - one CPU's latest interval
 * @cpu: logical CPU number
 * @flags: N3T_REC_* flags
 * @seq: interval sequence number (0 before the first interval ends)
 * @end_ns: end of the interval, CLOCK_MONOTONIC nanoseconds
 * @interval_ns: length of the interval
 * @nr_sets: event sets rotated through in the interval
 * @lost_slices: slices discarded since collection (re)started, all sets
 * @valid: validity bitmap of @value
 * @counted: events counted in the interval (bitmap like @valid)
 * @value: metric values in fixed point
 * @event_count: cumulative count of each event since collection started
 * @event_ns: cumulative nanoseconds each event was counting
 */
struct n3t_snapshot_record {
	__u32 cpu;
	__u32 flags;
	__u64 seq;
	__u64 end_ns;
	__u64 interval_ns;
	__u32 nr_sets;
	__u32 lost_slices;
	__u64 valid[2];
	__u64 counted[2];
	__s64 value[N3T_SNAP_NR_METRICS];
	__u64 event_count[N3T_SNAP_NR_EVENTS];
	__u64 event_ns[N3T_SNAP_NR_EVENTS];
};

#endif /* _UAPI_LINUX_N3TELEMETRY_H */
