module kubelet-hash.local/node-helper

go 1.22
