// hash-judge-1.36: the container hash as kubelet 1.36 computes it, over the real 1.36 types.
//
// Built in GOPATH mode against Debian's golang-k8s-api-dev 0.36.4 (k8s.io/api of Kubernetes 1.36)
// and golang-k8s-apimachinery-dev 0.36.4, with Debian's Go 1.27. Since 1.31 the kubelet hashes
// only the container's name and image: json.Marshal of {"name", "image"} (pickFieldsToHash), fed
// to FNV-1a 32 through pkg/util/hash.DeepHashObject, which since 1.30 writes
// apimachinery's dump.ForHash of the object (go-spew "%#v", the config of the older releases).
// Kubernetes' own pkg/ is not packaged in Debian, so those few lines are restated here.
//
// Protocol: as hash-judge-1.20 (one container per stdin line; {"hash"} or {"error"} per line). The
// whole container is decoded, as the kubelet decodes the whole pod: a container Go refuses is
// refused here even when its name and image are fine.
//
// With -bench (for bench/run.ts): the same lines in, and per container {"ns":<ns per hash>} out:
// testing.Benchmark of the hash alone over the decoded container (the kubelet hashes a decoded
// pod; decoding is not part of HashContainer).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/dump"
)

type answer struct {
	Hash  string  `json:"hash,omitempty"`
	Error string  `json:"error,omitempty"`
	Ns    float64 `json:"ns,omitempty"`
}

func hashContainer(c *v1.Container) uint64 {
	picked, _ := json.Marshal(map[string]string{"name": c.Name, "image": c.Image})
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(picked))
	return uint64(h.Sum32())
}

// served decodes a container as the kubelet receives it: the line into v1.Container, then one
// json.Marshal -> json.Unmarshal round trip (what the apiserver stores and serves back).
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

func judge(line []byte) answer {
	c, why := served(line)
	if c == nil {
		return answer{Error: why}
	}
	return answer{Hash: strconv.FormatUint(hashContainer(c), 16)}
}

var sink uint64

func bench(line []byte) answer {
	c, why := served(line)
	if c == nil {
		return answer{Error: why}
	}
	r := testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink ^= hashContainer(c)
		}
	})
	return answer{Ns: float64(r.T.Nanoseconds()) / float64(r.N)}
}

func main() {
	respond := judge
	if len(os.Args) == 2 && os.Args[1] == "-bench" {
		respond = bench
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
