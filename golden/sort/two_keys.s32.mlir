module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>, %arg1: tensor<12xi32>) -> (tensor<12xi32> {jax.result_info = "result[0]"}, tensor<12xi32> {jax.result_info = "result[1]"}) {
    %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
      %1 = stablehlo.compare LT, %arg4, %arg5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %2 = stablehlo.compare LT, %arg2, %arg3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %3 = stablehlo.compare EQ, %arg2, %arg3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %4 = stablehlo.and %3, %1 : tensor<i1>
      %5 = stablehlo.or %2, %4 : tensor<i1>
      stablehlo.return %5 : tensor<i1>
    }) : (tensor<12xi32>, tensor<12xi32>) -> (tensor<12xi32>, tensor<12xi32>)
    return %0#0, %0#1 : tensor<12xi32>, tensor<12xi32>
  }
}
