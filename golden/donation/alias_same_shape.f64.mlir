module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf64> {tf.aliasing_output = 0 : i32}) -> (tensor<4x3xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x3xf64>
    return %1 : tensor<4x3xf64>
  }
}
