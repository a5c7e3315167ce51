// hash-judge-1.36: the container hash as kubelet 1.36 computes it, over the real 1.36 types.
//
// Built in GOPATH mode against Debian's golang-k8s-api-dev 0.36.4 (k8s.io/api of Kubernetes 1.36)
// and golang-k8s-apimachinery-dev 0.36.4, with Debian's Go 1.27. Since 1.31 the kubelet hashes
// only the container's name and image: json.Marshal of {"name", "image"} (pickFieldsToHash), fed
// to FNV-1a 32 through pkg/util/hash.DeepHashObject, which since 1.30 writes
// apimachinery's dump.ForHash of the object (go-spew "%#v", the config of the older releases).
// Kubernetes' own pkg/ is not packaged in Debian, so those few lines are restated here.
//
// Protocol (stdin/stdout, -bench): ../hash-judge-protocol/protocol.go, built in beside this file.
// The whole container is decoded, as the kubelet decodes the whole pod: a container Go refuses is
// refused here even when its name and image are fine.
package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/dump"
)

func hashContainer(c *v1.Container) uint64 {
	picked, _ := json.Marshal(map[string]string{"name": c.Name, "image": c.Image})
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(picked))
	return uint64(h.Sum32())
}

func main() { serve(hashContainer) }
