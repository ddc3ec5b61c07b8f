# The clock's sources: the estimator's stages and the timeline, which need
# nothing but libm. The library (CMakeLists.txt here), the estimator's
# fuzz target (tests/fuzz) and the browser's module (bindings/web) all
# build them from this one list.
set(TICKSYNC_CLOCK_SOURCES)
foreach(f estimator.c drift.c fit.c jitter.c level.c path.c polling.c rings.c samples.c step.c timeline.c)
  list(APPEND TICKSYNC_CLOCK_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${f})
endforeach()
