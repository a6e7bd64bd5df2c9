module github.com/offtop/offtop/contrib

go 1.26.7

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/offtop/offtop v0.0.0
	github.com/panjf2000/ants/v2 v2.12.1
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/tools v0.30.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/offtop/offtop => ../
