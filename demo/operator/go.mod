module olmv1.demo/operator

go 1.26.0
