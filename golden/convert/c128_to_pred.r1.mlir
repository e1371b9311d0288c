module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xcomplex<f64>>) -> (tensor<12xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.real %arg0 : (tensor<12xcomplex<f64>>) -> tensor<12xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<12xf64>, tensor<12xf64>) -> tensor<12xi1>
    %3 = stablehlo.convert %2 : tensor<12xi1>
    return %3 : tensor<12xi1>
  }
}
