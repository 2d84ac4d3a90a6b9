// Command cdrgen writes the CDR codec of package ros2msg from the message
// definitions: messages_gen.go for the ghost messages (package msg) and
// diagnostics_gen.go for the standard types the node publishes (package
// stdmsgs). Run it through go generate in pkg/wire/ros2msg:
//
//	go generate ./pkg/wire/ros2msg
//
// Its output depends only on the definitions, so running it twice gives the
// same bytes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", ".", "directory to write the generated files into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "cdrgen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	files, err := generateAll()
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}
