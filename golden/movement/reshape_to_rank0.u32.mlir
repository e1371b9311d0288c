module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xui32>) -> (tensor<ui32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<3x4xui32>) -> tensor<1x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<1x1xui32>) -> tensor<ui32>
    return %1 : tensor<ui32>
  }
}
