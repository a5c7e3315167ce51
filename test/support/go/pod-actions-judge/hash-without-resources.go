// A runtime container's stored hashes (1.27-1.30 also store the hash without resources, which the
// resize check compares): those of the container it was made from.
package kuberuntime

import (
	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

func judgeHash(st *kubecontainer.Status, before *v1.Container) {
	st.Hash = kubecontainer.HashContainer(before)
	st.HashWithoutResources = kubecontainer.HashContainerWithoutResources(before)
}
