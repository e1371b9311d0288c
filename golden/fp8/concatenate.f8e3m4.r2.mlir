module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf8E3M4>) -> (tensor<6x4xf8E3M4> {jax.result_info = "result"}) {
    %0 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<3x4xf8E3M4>, tensor<3x4xf8E3M4>) -> tensor<6x4xf8E3M4>
    return %0 : tensor<6x4xf8E3M4>
  }
}
