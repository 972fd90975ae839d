// Package faults is the fault-injection suite (make test-faults; see
// docs/faults.md): two real ogx-controller replicas with leader election
// roll a fleet of OGXServers out on the local control plane
// (test/framework) while the suite kills the leader, restarts the
// apiserver or etcd, throttles the operator with API Priority and Fairness,
// or changes the cluster while no replica runs. Every claim is checked on
// the objects or in the apiserver's audit log.
//
// It is not part of make test: at its default size (FAULTS_N=200) it takes
// several minutes.
package faults
