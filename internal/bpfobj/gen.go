// Package bpfobj holds contend's BPF programs (native/bpf/*.bpf.c),
// compiled by clang through bpf2go into the objects and Go loaders of
// this directory. They are committed: a build needs no clang; `make bpf`
// regenerates them (clang, and the libbpf headers: Debian's clang, llvm
// and libbpf-dev).
package bpfobj

//go:generate go run github.com/cilium/ebpf/cmd/bpf2go@v0.21.0 -go-package bpfobj -output-stem lock -target bpfel,bpfeb Lock ../../native/bpf/lock.bpf.c -- -O2 -g -I/usr/include/x86_64-linux-gnu
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go@v0.21.0 -go-package bpfobj -output-stem offcpu -target bpfel,bpfeb Offcpu ../../native/bpf/offcpu.bpf.c -- -O2 -g -I/usr/include/x86_64-linux-gnu
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go@v0.21.0 -go-package bpfobj -output-stem percpu -target bpfel,bpfeb Percpu ../../native/bpf/percpu.bpf.c -- -O2 -g -I/usr/include/x86_64-linux-gnu
