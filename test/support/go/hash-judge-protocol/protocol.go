// The protocol both hash judges speak (copied beside each judge's main.go at build time, so it is
// part of package main there; its SHA-256 is part of each judge's cache key).
//
// One container per line on stdin (JSON, as the apiserver would be sent it); for each, one line on
// stdout: {"hash":"<hex>"} or {"error":"<why Go refused>"}. Output is flushed whenever the input
// runs dry, so a caller may write a batch and then read as many lines back.
//
// The decode path is the kubelet's as the oracle models it: encoding/json into v1.Container, then
// one json.Marshal -> json.Unmarshal round trip (what the apiserver stores and serves back).
//
// With -bench (for bench/run.ts): the same lines in, and per container {"ns":<ns per hash>} out:
// testing.Benchmark of the hash alone over the decoded container (the kubelet hashes a decoded
// pod; decoding is not part of HashContainer).
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
)

type answer struct {
	Hash  string  `json:"hash,omitempty"`
	Error string  `json:"error,omitempty"`
	Ns    float64 `json:"ns,omitempty"`
}

// served decodes a container as the kubelet receives it.
func served(line []byte) (*v1.Container, string) {
	var sent v1.Container
	if err := json.Unmarshal(line, &sent); err != nil {
		return nil, "decode: " + err.Error()
	}
	stored, err := json.Marshal(&sent)
	if err != nil {
		return nil, "encode: " + err.Error()
	}
	var back v1.Container
	if err := json.Unmarshal(stored, &back); err != nil {
		return nil, "round trip: " + err.Error()
	}
	return &back, ""
}

var sink uint64

// serve answers stdin's containers with hash (or, with -bench, its time) until EOF.
func serve(hash func(*v1.Container) uint64) {
	respond := func(line []byte) answer {
		c, why := served(line)
		if c == nil {
			return answer{Error: why}
		}
		return answer{Hash: strconv.FormatUint(hash(c), 16)}
	}
	if len(os.Args) == 2 && os.Args[1] == "-bench" {
		respond = func(line []byte) answer {
			c, why := served(line)
			if c == nil {
				return answer{Error: why}
			}
			r := testing.Benchmark(func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sink ^= hash(c)
				}
			})
			return answer{Ns: float64(r.T.Nanoseconds()) / float64(r.N)}
		}
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if encErr := enc.Encode(respond(line)); encErr != nil {
				os.Exit(3)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			os.Exit(4)
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				os.Exit(3)
			}
		}
	}
	if err := out.Flush(); err != nil {
		os.Exit(3)
	}
}
