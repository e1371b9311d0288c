module @jit__lambda attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %arg1: tensor<4x3xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<8x3xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    return %0 : tensor<8x3xf32>
  }
}
