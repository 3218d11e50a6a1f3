package harness

// Helpers for tests that clean up after processes a test orphaned.

// KillGroup kills every process left in process group pgid and reaps the
// ones that are contend's children.
func KillGroup(pgid int) { killGroup(pgid) }
