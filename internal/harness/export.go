package harness

// Helpers shared with other runners of child processes
// (internal/external runs unmodified programs the same way).

// KillGroup kills every process left in process group pgid and reaps the
// ones that are contend's children.
func KillGroup(pgid int) { killGroup(pgid) }
