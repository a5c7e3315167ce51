// computePodActions of 1.37: a context, the restartAllContainers argument (ContainersToReset) as
// the kubelet derives it (kubelet.go SyncPod reads the AllContainersRestarting condition that
// GenerateAllContainersRestartingCondition writes), and the actuated resources the resize check reads
// (an empty in-memory record: the judged pods set no resources, so nothing is resized).
package kuberuntime

import (
	"context"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/allocation/state"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

func judgeRun(c *judgeCase, pod *v1.Pod, status *kubecontainer.PodStatus, liveness, startup proberesults.Manager) judgeAnswer {
	// Every container of the judged pod runs in its one (newest) sandbox.
	status.ActiveContainerStatuses = status.ContainerStatuses
	m := &kubeGenericRuntimeManager{
		livenessManager:   liveness,
		startupManager:    startup,
		internalLifecycle: cm.NewFakeInternalContainerLifecycle(),
		actuatedState:     state.NewStateMemory(klog.Background(), nil),
	}
	old := &v1.PodStatus{}
	if c.AllContainersRestarting {
		old.Conditions = []v1.PodCondition{{Type: v1.AllContainersRestarting, Status: v1.ConditionTrue}}
	}
	restartAll := utilfeature.DefaultFeatureGate.Enabled(features.RestartAllContainersOnContainerExits) &&
		kubecontainer.ShouldAllContainersRestart(pod, status, old) && !kubecontainer.AllContainersRestartCleanedUp(pod, status)
	p := m.computePodActions(context.Background(), pod, status, restartAll)
	a := judgeAnswer{
		KillPod:             p.KillPod,
		CreateSandbox:       p.CreateSandbox,
		Attempt:             p.Attempt,
		InitToStart:         judgeNames(pod.Spec.InitContainers, p.InitContainersToStart),
		ContainersToStart:   judgeNames(pod.Spec.Containers, p.ContainersToStart),
		EphemeralToStart:    judgeEphemeralNames(pod, p.EphemeralContainersToStart),
		ContainersToKill:    judgeKilled(p.ContainersToKill),
		ContainersToReset:   []string{},
		ContainersResetKill: []string{},
	}
	for _, r := range p.ContainersToReset {
		a.ContainersToReset = append(a.ContainersToReset, r.container.Name)
		if r.kill {
			a.ContainersResetKill = append(a.ContainersResetKill, r.container.Name)
		}
	}
	return a
}
