module @jit_fn attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x3xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x3xf32>) -> tensor<2x3xf32>
    %2 = call @shmap_body(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<2x3xf32>) -> tensor<8x3xf32>
    return %4 : tensor<8x3xf32>
  }
  func.func private @shmap_body(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "[('x',), None]"}) {
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %0 = stablehlo.partition_id : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.remainder %1, %c_0 : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<i32>
    %4 = stablehlo.convert %3 : (tensor<i32>) -> tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<2x3xf32>
    return %6 : tensor<2x3xf32>
  }
}
