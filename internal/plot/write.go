package plot

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"
)

// writeFile writes c to path through a temporary file and a rename, so a
// failed plot leaves no half-written image.
func writeFile(path string, c vg.CanvasWriterTo) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := c.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
