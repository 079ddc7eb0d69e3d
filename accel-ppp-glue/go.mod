module github.com/bngpod/bngpod/accel-ppp-glue

go 1.23

require gopkg.in/yaml.v3 v3.0.1

require layeh.com/radius v0.0.0-20231213012653-1006025d24f8
