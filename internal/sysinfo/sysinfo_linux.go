//go:build linux

package sysinfo

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// open opens /proc/self/statm once; it is re-read at offset 0 on every Read.
func (r *Reader) open(root string) {
	f, err := os.Open(filepath.Join(root, "proc/self/statm"))
	if err == nil {
		r.statm = f
	}
}

// readRSS returns the current RSS in bytes, or -1. Callers hold mu.
func (r *Reader) readRSS() int64 {
	n, err := r.statm.ReadAt(r.buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return -1
	}
	pages, err := parseStatm(r.buf[:n])
	if err != nil || pages > (1<<63-1)/r.pageSize {
		return -1
	}
	return pages * r.pageSize
}
