module olmv1.test/envtest/pause

go 1.26.0
