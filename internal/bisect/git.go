package bisect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"contend/internal/external"
	"contend/internal/textfmt"
)

// git runs git -C repo args and returns its standard output.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// Range returns the commits from good to bad in repo: good first, then
// every commit on bad's first-parent line after good, oldest first. good
// must be an ancestor of bad.
func Range(ctx context.Context, repo, good, bad string) ([]Commit, error) {
	if _, err := git(ctx, repo, "rev-parse", "--git-dir"); err != nil {
		return nil, fmt.Errorf("--repo: %s is not a git repository", repo)
	}
	g, err := revParse(ctx, repo, good, "--good")
	if err != nil {
		return nil, err
	}
	b, err := revParse(ctx, repo, bad, "--bad")
	if err != nil {
		return nil, err
	}
	if g == b {
		return nil, fmt.Errorf("--good and --bad are the same commit %s: nothing to bisect", textfmt.Commit(g))
	}
	if _, err := git(ctx, repo, "merge-base", "--is-ancestor", g, b); err != nil {
		return nil, fmt.Errorf("--good %s is not an ancestor of --bad %s: give an older good commit", good, bad)
	}
	out, err := git(ctx, repo, "log", "--reverse", "--first-parent", "--ancestry-path", "--format=%H%x1f%s", g+".."+b)
	if err != nil {
		return nil, err
	}
	subj, err := git(ctx, repo, "log", "-1", "--format=%s", g)
	if err != nil {
		return nil, err
	}
	cs := []Commit{{Hash: g, Subject: strings.TrimSpace(subj)}}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		h, s, _ := strings.Cut(line, "\x1f")
		if h != "" {
			cs = append(cs, Commit{Hash: h, Subject: s})
		}
	}
	if cs[len(cs)-1].Hash != b {
		return nil, fmt.Errorf("the first-parent line from --bad %s does not pass through --good %s: give a good commit on it", bad, good)
	}
	return cs, nil
}

func revParse(ctx context.Context, repo, rev, flag string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%s: %q is not accepted; accepted: a revision of the repository (a hash, a tag, a branch)", flag, rev)
	}
	out, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s: %q is not a commit of %s", flag, rev, repo)
	}
	return strings.TrimSpace(out), nil
}

// addWorktree makes a detached worktree of repo at hash in dir.
func addWorktree(ctx context.Context, repo, dir, hash string) error {
	_, err := git(ctx, repo, "worktree", "add", "--detach", "--force", dir, hash)
	return err
}

// removeWorktree removes the worktree dir of repo (also after a
// cancelled context: it runs on its own), and what is left of the
// directory.
func removeWorktree(repo, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := git(ctx, repo, "worktree", "remove", "--force", "--force", dir)
	if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
		err = rerr
	}
	git(ctx, repo, "worktree", "prune")
	if _, serr := os.Stat(dir); serr == nil {
		return fmt.Errorf("cannot remove the worktree %s: %v", dir, err)
	}
	return nil
}

// RemoveWorktrees removes every worktree left in dir by a search that was
// killed (SIGKILL, a power cut): the directories, and their records in
// repo.
func RemoveWorktrees(repo, dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := removeWorktree(repo, filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// runGroup runs cmd in a process group of its own under the launcher
// (external.RunGroup): a cancelled ctx sends the group SIGTERM (a contend
// run then stops after the repetition in flight) and, 30 s later,
// SIGKILL; the group is killed when the command ends, and when contend
// dies (SIGKILL included), so that no build or measurement outlives the
// search that wanted it.
func runGroup(ctx context.Context, cmd *exec.Cmd) error {
	return external.RunGroup(ctx, cmd, 30*time.Second)
}

// Head returns the commit checked out in repo.
func Head(ctx context.Context, repo string) (string, error) {
	out, err := git(ctx, repo, "rev-parse", "--verify", "HEAD")
	return strings.TrimSpace(out), err
}
