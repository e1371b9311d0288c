module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf8E4M3>) -> (tensor<2x2xf8E4M3> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [1:3, 0:4:2] : (tensor<3x4xf8E4M3>) -> tensor<2x2xf8E4M3>
    return %0 : tensor<2x2xf8E4M3>
  }
}
