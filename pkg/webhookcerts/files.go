package webhookcerts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// writeFileIfChanged replaces dir/name with data unless it already holds
// exactly that. The new content goes to a temporary file in dir, is synced
// and then renamed over the old file, so a reader sees the old or the new
// content, never a partial one. It reports whether it wrote.
func writeFileIfChanged(dir, name string, data []byte, perm os.FileMode) (written bool, err error) {
	path := filepath.Join(dir, name)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating certificate directory: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return false, fmt.Errorf("replacing %s: %w", path, err)
	}
	return true, nil
}
