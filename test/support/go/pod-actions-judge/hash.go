// A runtime container's stored hash: the hash of the container it was made from.
package kuberuntime

import (
	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

func judgeHash(st *kubecontainer.Status, before *v1.Container) {
	st.Hash = kubecontainer.HashContainer(before)
}
