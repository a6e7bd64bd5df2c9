// Package node ships offtop's agent for Node.js (the JavaScript in this
// folder, an npm package of its own) inside the offtop binary, so
// `offtop node` needs nothing installed beyond Node itself.
package node

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed package.json index.js preload.js lib/*.js
var files embed.FS

// Write copies the agent into dir (which must exist; files 0600, folders
// 0700) and returns the path of its preload, for `node --require`.
func Write(dir string) (preload string, err error) {
	err = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			if p == "." {
				return nil
			}
			return os.Mkdir(dst, 0o700)
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		return "", fmt.Errorf("node agent: %w", err)
	}
	return filepath.Join(dir, "preload.js"), nil
}
