module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xui64>, %arg1: tensor<ui64>) -> (tensor<6x7xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.pad %arg0, %arg1, low = [1, -1], high = [2, 1], interior = [0, 1] : (tensor<3x4xui64>, tensor<ui64>) -> tensor<6x7xui64>
    return %0 : tensor<6x7xui64>
  }
}
