package fleet

// APIServerFlags are the flags a fleet run gives its embedded kube-apiserver: it asks etcd to
// compact its history every minute, not every five, so a wave's old revisions do not pile up.
var APIServerFlags = []string{"etcd-compaction-interval=1m"}

// EtcdFlags are the flags a fleet run gives its embedded etcd: etcd 3.5 keeps up to 100,000
// raft entries in memory between snapshots (its default snapshot-count), each a whole object
// written; 10,000 is etcd 3.6's default. With both, 1,000-deployment waves took etcd to
// 260 MB at most, not 1.3 GB, and the API server to 1.6 GB, not 2.5 GB.
var EtcdFlags = []string{"snapshot-count=10000"}
