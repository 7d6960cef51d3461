package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.md")
	os.WriteFile(path, []byte("previous"), 0o600)
	e := &env{stdout: io.Discard}
	err := writeOutput(e, path, func(w io.Writer) error {
		io.WriteString(w, "half a report")
		return errors.New("render failed")
	})
	if err == nil {
		t.Fatal("render error lost")
	}
	if b, _ := os.ReadFile(path); string(b) != "previous" {
		t.Fatalf("a failed render changed the target: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temp file left behind: %v", ents)
	}
	if err := writeOutput(e, path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %v", b, st.Mode())
	}
}

// Writing to a FIFO must feed the FIFO, not replace it with a file.
func TestWriteOutputToFIFOKeepsIt(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		var b bytes.Buffer
		io.Copy(&b, f)
		f.Close()
		got <- b.Bytes()
	}()
	if err := writeOutput(&env{}, fifo, func(w io.Writer) error { _, err := io.WriteString(w, "report"); return err }); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "report" {
		t.Fatalf("reader got %q", b)
	}
	st, err := os.Lstat(fifo)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("FIFO replaced: %v %v", st.Mode(), err)
	}
}
