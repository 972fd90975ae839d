// Package framework runs a throwaway Kubernetes control plane on loopback for
// integration tests.
//
// It starts the real etcd and kube-apiserver programs, and in Full mode also
// kube-controller-manager, kube-scheduler and kwok with fake Nodes, from a
// directory of prebuilt binaries (see Options.AssetsDir). Tests therefore run
// against the same validation, admission, garbage collection and scheduling
// code as a real cluster, without containers, a kubelet or network access:
// kwok plays the kubelet and marks pods Running/Ready without pulling images.
//
// Everything a control plane writes (certificates, kubeconfig, etcd data,
// component logs) lives in one temporary directory that Stop removes, and
// every port is a free loopback port, so several test packages can run their
// own control planes in parallel.
//
// A test package normally starts one control plane in TestMain via RunMain
// and isolates its tests from each other with CreateNamespace.
package framework
