/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * n3telemetry: layout of the binary snapshot read from /dev/n3telemetry.
 *
 * Reading the device from offset 0 to EOF returns a struct
 * n3t_snapshot_header, then names_size bytes of names (at names_offset),
 * then nr_records records of record_size bytes (at records_offset), one per
 * CPU online when the snapshot was taken, in CPU order.
 *
 * Byte order: every field is in the native byte order of the kernel that
 * wrote it (the records are copies of the module's own data), so a reader
 * on the same machine needs no conversion.  magic reads as 0x5354334e only
 * in the reader's own byte order; a snapshot moved to a machine of the other
 * order is recognised by magic reading byte-swapped.
 *
 * A reader checks magic and abi_version, then uses the offsets and
 * record_size, so fields appended in a later version are skipped.
 *
 * Each open file has its own snapshot: a read at offset 0 takes it, reads
 * at later offsets continue it whatever other readers do, so a reader that
 * reads from 0 to EOF gets one consistent set of records; another read at
 * offset 0 (pread, lseek) takes a new one.
 *
 * Names: the snapshot describes itself.  The names section is text, one
 * item per line, fields separated by one space, the last field of a
 * `model` and a `metric` line running to the end of the line:
 *
 *   model <m> <name> <slots> <groups> <title>
 *   event <m> <i> <name> <code>
 *   metric <m> <i> <name> <decimals> <unit>
 *   group <m> <g> <name> <arm_name> <metric index>...
 *
 * <m> is the model index a record's @model refers to; <i> is the index of
 * the event or metric in a record's arrays; <g> is the bit of the group in
 * <groups> (the selected groups, hexadecimal with 0x) and in the sysfs
 * group selection; <code> is the PMU event number in hexadecimal with 0x;
 * <decimals> is the number of decimals the value is printed with; <slots>
 * is the slot count the formulas use on that model's CPUs.
 *
 * Fixed point: value[i] is the metric in units of 1/fixed_scale of its unit
 * (fixed_scale is 1000000: 21.37 percent is 21370000), truncated toward
 * zero.  value[i] means something only when bit i of valid is set (bit i is
 * bit i % 64 of valid[i / 64]); otherwise the metric is undefined ("nan" in
 * the text files) or not selected (its group is not in <groups>).
 */
#ifndef _UAPI_LINUX_N3TELEMETRY_H
#define _UAPI_LINUX_N3TELEMETRY_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define N3T_SNAP_MAGIC		0x5354334eU	/* "N3TS" */
#define N3T_SNAP_ABI_VERSION	2
#define N3T_SNAP_MAX_EVENTS	96	/* length of a record's event arrays */
#define N3T_SNAP_MAX_METRICS	96	/* length of a record's metric arrays */
#define N3T_SNAP_MAX_GROUPS	32	/* length of a record's group arrays */
#define N3T_SNAP_FIXED_SCALE	1000000

/**
 * struct n3t_snapshot_header - start of the snapshot
 * @magic: N3T_SNAP_MAGIC
 * @abi_version: N3T_SNAP_ABI_VERSION
 * @header_size: sizeof(struct n3t_snapshot_header) of the writer
 * @record_size: size of one record, at least sizeof(struct n3t_snapshot_record)
 * @nr_records: number of records
 * @nr_models: number of models described in the names
 * @max_events: N3T_SNAP_MAX_EVENTS
 * @max_metrics: N3T_SNAP_MAX_METRICS
 * @interval_ms: configured interval length
 * @names_offset: offset of the names section from the start
 * @names_size: its size in bytes (text, no NUL)
 * @records_offset: offset of the first record from the start
 * @fixed_scale: N3T_SNAP_FIXED_SCALE
 */
struct n3t_snapshot_header {
	__u32 magic;
	__u32 abi_version;
	__u32 header_size;
	__u32 record_size;
	__u32 nr_records;
	__u32 nr_models;
	__u32 max_events;
	__u32 max_metrics;
	__u32 interval_ms;
	__u32 names_offset;
	__u32 names_size;
	__u32 records_offset;
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
 * @lost_slices: slices discarded since the module was loaded, all sets;
 *	stops at 4294967295 (see @lost_slices_total)
 * @model: index of the CPU's model in the names; ~0 when the CPU has none
 * @nr_events: events of that model (entries of the event arrays used)
 * @nr_metrics: metrics of that model (entries of @value used)
 * @reserved: zero
 * @valid: validity bitmap of @value
 * @counted: events counted in the interval (bitmap like @valid)
 * @value: metric values in fixed point
 * @event_count: cumulative count of each event since the module was loaded
 *	(never going back: across a pause, a reconfiguration, CPU hotplug;
 *	also filled in a record without N3T_REC_VALID)
 * @event_ns: cumulative nanoseconds each event was counting (likewise)
 * @lost_slices_total: slices discarded since the module was loaded, all
 *	sets, in 64 bits (appended after the first release: a record_size
 *	that does not cover it is an older module's, whose @lost_slices is
 *	the count)
 * @group_seq: for each group <g> of the model (the group's bit), the
 *	sequence number of the interval its values come from: with the
 *	rotating schedule a group is counted in one interval out of several
 *	and keeps its values until its next turn; 0 when the group is not
 *	selected or was not counted yet (its values are then not valid)
 * @group_end_ns: the end of that interval, CLOCK_MONOTONIC nanoseconds
 *	(0 with @group_seq 0); @seq and @end_ns are the latest interval's.
 *	Both appended with the rotating schedule: a record_size that does
 *	not cover them is an older module's, whose values all come from
 *	the interval @seq.
 * @composed: the metrics whose value, when valid, is composed rather than
 *	exact (bitmap like @valid): their events do not fit in the counters
 *	together, so each event's rate was counted apart, beside CPU_CYCLES
 *	(or, on one counter without the cycle counter, per second of
 *	counting), and the formula evaluated from the rates.  Appended with
 *	composition: a record_size that does not cover it is an older
 *	module's, all of whose values are exact.
 * @event_slice_count: cumulative count of each event in the complete
 *	slices of its sets (since the module was loaded, never going back,
 *	like @event_count; a slice lost to another perf user is not in it)
 * @event_slice_ns: the time of those same slices, nanoseconds: two events
 *	counted in the same slices have the same time, and the ratio of their
 *	@event_slice_count differences between two snapshots is exact over
 *	those slices; each event's count per second of its slices is its rate
 *	where it was counted.  n3tel stat evaluates a run's metrics from the
 *	differences of both.  Appended with them: a record_size that does not
 *	cover them is an older module's.
 * @slices_ns: the time of every complete slice, whichever set's, since the
 *	module was loaded: the time the CPU was counted in full (appended
 *	with @event_slice_ns)
 */
struct n3t_snapshot_record {
	__u32 cpu;
	__u32 flags;
	__u64 seq;
	__u64 end_ns;
	__u64 interval_ns;
	__u32 nr_sets;
	__u32 lost_slices;
	__u32 model;
	__u32 nr_events;
	__u32 nr_metrics;
	__u32 reserved;
	__u64 valid[2];
	__u64 counted[2];
	__s64 value[N3T_SNAP_MAX_METRICS];
	__u64 event_count[N3T_SNAP_MAX_EVENTS];
	__u64 event_ns[N3T_SNAP_MAX_EVENTS];
	__u64 lost_slices_total;
	__u64 group_seq[N3T_SNAP_MAX_GROUPS];
	__u64 group_end_ns[N3T_SNAP_MAX_GROUPS];
	__u64 composed[2];
	__u64 event_slice_count[N3T_SNAP_MAX_EVENTS];
	__u64 event_slice_ns[N3T_SNAP_MAX_EVENTS];
	__u64 slices_ns;
};

/**
 * struct n3t_pause_lease - the argument of N3T_IOC_PAUSE
 * @cpus: user address of an array of @nr_words 64-bit words, a CPU bitmap
 *	(bit n % 64 of word n / 64: CPU n)
 * @nr_words: words at @cpus; 0 for every CPU
 * @flags: 0
 *
 * N3T_IOC_PAUSE on an open /dev/n3telemetry: the module holds no counter
 * on those CPUs (it releases them before the call returns) for as long as
 * that open file exists; then it counts there again.  Leases of several
 * files compose: a CPU counts again once none of them names it.  One lease
 * per open file (EBUSY for a second); EPERM without CAP_PERFMON (or
 * CAP_SYS_ADMIN) when the file was opened; EINVAL for a CPU the kernel
 * cannot have, an empty bitmap or @flags.
 */
struct n3t_pause_lease {
	__u64 cpus;
	__u32 nr_words;
	__u32 flags;
};

#define N3T_IOC_PAUSE		_IOW(0xb3, 0x01, struct n3t_pause_lease)

/**
 * struct n3t_sum_request - the argument of N3T_IOC_SUM
 * @cpus: user address of an array of @nr_words 64-bit words, a CPU bitmap
 *	as in struct n3t_pause_lease
 * @nr_words: words at @cpus; 0 for every CPU
 * @flags: 0
 * @record: user address of a struct n3t_snapshot_record to fill
 * @record_size: bytes at @record: the record is written up to
 *	min(@record_size, sizeof(struct n3t_snapshot_record)), so a reader
 *	built for an older layout gets the fields it knows
 * @nr_cpus: written by the module: the CPUs whose latest intervals were
 *	summed (those of the core type that collect)
 * N3T_IOC_SUM on an open /dev/n3telemetry: the sum of those CPUs' latest
 * intervals as one record, computed as system/ is (each set's counts
 * added over the CPUs, the formulas evaluated on the sums: a ratio over
 * those CPUs together, exact where the CPUs' values are), of the CPUs of
 * one core type; @cpu is 0xffffffff.  The cumulative counts are summed
 * over every CPU of the bitmap and type, online or not: event_count and
 * event_ns saturate at 2^64 - 1, event_slice_count, event_slice_ns and
 * slices_ns are modulo 2^64 (their differences between two sums stay
 * exact).  With no CPU of a core type in the bitmap the record has model
 * ~0 and no N3T_REC_VALID.  Data, like the snapshot: no capability beyond
 * what opening the device took.  EINVAL for a CPU the kernel cannot have,
 * an empty bitmap, CPUs of two core types, @flags, or a @record_size
 * below offsetof(struct n3t_snapshot_record, event_count).
 */
struct n3t_sum_request {
	__u64 cpus;
	__u32 nr_words;
	__u32 flags;
	__u64 record;
	__u32 record_size;
	__u32 nr_cpus;
};

#define N3T_SUM_CPU		0xffffffffU	/* struct n3t_snapshot_record.cpu of a sum */
#define N3T_IOC_SUM		_IOWR(0xb3, 0x02, struct n3t_sum_request)

#endif /* _UAPI_LINUX_N3TELEMETRY_H */
