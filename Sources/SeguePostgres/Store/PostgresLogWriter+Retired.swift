import SegueStore

/// What a committed batch leaves to free (its rows' parameters, the server's results, the plan),
/// kept until the upkeep after the batch's completions: freeing it costs a few microseconds of cold
/// memory, which a waiting client would otherwise pay between the commit and its reply.
struct RetiredBatch {
    var plan: PostgresLogWriter.Plan?
    var steps: [PipelineStep] = []
    var rows: [PostgresResult] = []
}

extension PostgresLogWriter {
    var upkeepDue: Bool { retiredKept.load(ordering: .relaxed) }

    /// The daemon's loop calls this after the replies (`EventStoring.checkpointIfDue`), and an
    /// inline commit before its batch, so at most one batch's remains are ever kept.
    func takeDueUpkeep() -> (() -> Void)? {
        releaseRetired()
        return nil
    }

    func runDueUpkeep() { releaseRetired() }

    func retire(_ steps: [PipelineStep], _ rows: [PostgresResult]) {
        retired.steps = steps
        retired.rows = rows
        retiredKept.store(true, ordering: .relaxed)
    }

    func retire(_ plan: Plan) {
        retired.plan = plan
        retiredKept.store(true, ordering: .relaxed)
    }

    private func releaseRetired() {
        guard retiredKept.load(ordering: .relaxed) else { return }
        retired.plan = nil
        retired.steps.removeAll()
        retired.rows.removeAll()
        retiredKept.store(false, ordering: .relaxed)
    }
}
