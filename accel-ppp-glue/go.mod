module github.com/bngpod/bngpod/accel-ppp-glue

go 1.23

require (
	github.com/wmnsk/go-pfcp v0.0.24
	go.etcd.io/bbolt v1.4.3
	gopkg.in/yaml.v3 v3.0.1
	layeh.com/radius v0.0.0-20231213012653-1006025d24f8
)

require golang.org/x/sys v0.29.0 // indirect
