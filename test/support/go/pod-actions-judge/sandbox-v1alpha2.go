// The sandbox status over CRI v1alpha2 (1.20's runtime API).
package kuberuntime

import (
	v1 "k8s.io/api/core/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1alpha2"
)

func judgeSandboxStatus(pod *v1.Pod, s *judgeSandbox) *runtimeapi.PodSandboxStatus {
	st := &runtimeapi.PodSandboxStatus{
		Id:       "sandbox",
		Metadata: &runtimeapi.PodSandboxMetadata{Name: pod.Name, Namespace: pod.Namespace, Uid: string(pod.UID), Attempt: s.Attempt},
		State:    runtimeapi.PodSandboxState_SANDBOX_NOTREADY,
		Network:  &runtimeapi.PodSandboxNetworkStatus{},
		Linux: &runtimeapi.LinuxPodSandboxStatus{Namespaces: &runtimeapi.Namespace{Options: &runtimeapi.NamespaceOption{
			Network: runtimeapi.NamespaceMode_POD}}},
	}
	if s.Ready {
		st.State = runtimeapi.PodSandboxState_SANDBOX_READY
	}
	if s.HasIP {
		st.Network.Ip = "10.88.0.2"
	}
	if pod.Spec.HostNetwork {
		st.Linux.Namespaces.Options.Network = runtimeapi.NamespaceMode_NODE
	}
	return st
}
