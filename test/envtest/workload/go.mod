module olmv1.test/envtest/workload

go 1.26.0
