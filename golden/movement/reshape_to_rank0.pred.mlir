module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi1>) -> (tensor<i1> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<3x4xi1>) -> tensor<1x1xi1>
    %1 = stablehlo.reshape %0 : (tensor<1x1xi1>) -> tensor<i1>
    return %1 : tensor<i1>
  }
}
