"""A second core for flex_plan_run_on (flex.h) on the host: the other core's part of each
split step runs in the same thread, entirely before this core's part ("first") or entirely
after it ("last"). The two orders are the extremes of every interleaving two real cores can
take: a part that overwrote what the other still reads gives different bits in one of them.
"""

from burn.host.flex.binding import host

SPLIT_WORDS = 4


class HostCores:
    """flex_cores for a plan: `order` "first" or "last"; `spare` bytes of spare buffer;
    `take` False makes the core refuse every job; `fail` a status that finish returns;
    `free`, (arena, array of offset and length per step), the regions of the arena a step
    may use as its spare buffer (burn.cores.free_regions)."""

    def __init__(self, order="first", spare=4096, min_macs=0, take=True, fail=0, stop=False,
                 steps=64, free=None):
        lib = host()
        self.ffi, self.lib = lib.ffi, lib.lib
        self.order, self.take, self.fail = order, take, fail
        self.job, self.status, self.jobs = None, 0, 0
        ffi = self.ffi

        @ffi.callback("int(void *, const flex_job *)")
        def start(_ctx, job):
            if not self.take:
                return 0
            self.jobs += 1
            self.job, self.status = job, 0
            if self.order == "first":
                self.status = self.lib.flex_job_run(job)
            return 1

        @ffi.callback("flex_status(void *)")
        def finish(_ctx):
            if self.order == "last":
                self.status = self.lib.flex_job_run(self.job)
            return self.fail or self.status

        @ffi.callback("int(void *)")
        def asked_to_stop(_ctx):
            return 1 if stop else 0

        self.keep = [start, finish, asked_to_stop]
        self.spare = ffi.new("int8_t[]", max(spare, 1))
        self.record = ffi.new("int32_t[]", SPLIT_WORDS * steps)
        fields = {
            "start": start, "finish": finish, "stop": asked_to_stop, "ctx": ffi.NULL,
            "min_macs": min_macs, "spare": self.spare if spare else ffi.NULL,
            "spare_len": spare, "record": self.record, "record_len": SPLIT_WORDS * steps}
        if free is not None:
            arena, regions = free
            self.regions = ffi.new("int32_t[]", list(regions))
            fields.update(arena=ffi.cast("int8_t *", ffi.from_buffer(arena)),
                          free=self.regions, free_len=len(regions))
            self.keep.append(arena)
        self.cores = ffi.new("flex_cores *", fields)

    def run(self, plan):
        """Run a finished burn.host.flex.plan.Plan on both cores: (status, failed step)."""
        block = plan.block
        failed = self.ffi.new("int32_t *", -1)
        status = self.lib.flex_plan_run_on(block.plan, block.plan_len, block.buffers,
                                           block.n_buffers, failed, self.cores)
        return status, failed[0]

    def records(self, n):
        """The first n steps' records, as lists of FLEX_SPLIT_WORDS ints."""
        return [list(self.record[k * SPLIT_WORDS:(k + 1) * SPLIT_WORDS]) for k in range(n)]
