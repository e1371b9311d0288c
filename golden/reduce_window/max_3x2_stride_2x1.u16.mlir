module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x7xui16>) -> (tensor<3x7xui16> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<ui16>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui16>) -> tensor<ui16>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 1>}> ({
    ^bb0(%arg1: tensor<ui16>, %arg2: tensor<ui16>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<ui16>
      stablehlo.return %2 : tensor<ui16>
    }) : (tensor<6x7xui16>, tensor<ui16>) -> tensor<3x7xui16>
    return %1 : tensor<3x7xui16>
  }
}
