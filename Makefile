# Thin wrapper over CMake: `make` builds into build/, `make test` runs CTest
# with the sanitizer build, `make bench` builds the benchmarks.
BUILD ?= build
SAN_BUILD ?= build-san
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all test bench clean setup format run install

all:
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Tests run against the sanitizer build (clang, so the libFuzzer targets build
# too and run briefly as tests); CTest prints its summary. The normal build
# comes first: the QEMU tests put its guest programs into the guest image.
test: all
	@CC=clang CXX=clang++ cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMORTAR_SANITIZE=ON -DMORTAR_WERROR=ON -DMORTAR_FUZZ=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)
	@cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

bench: all
	@$(BUILD)/bin/bench-link

setup:
	@bash tools/setup.sh

# cmake --install of build/ (docs/install.md); PREFIX=DIR for another prefix
# than /usr/local, DESTDIR=DIR to stage it.
install: all
	@cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

# The main job.
run: all
	@bash tools/demo.sh

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
