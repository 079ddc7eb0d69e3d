module github.com/bngpod/bngpod/accel-ppp-glue

go 1.23

require gopkg.in/yaml.v3 v3.0.1

require github.com/wmnsk/go-pfcp v0.0.24
